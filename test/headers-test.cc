// SPDX-License-Identifier: GPL-2.0-only
//
// Wire-format tests for the ai-fabric transport headers, PFC frames and the
// RoCEv2 invariant CRC.

#include "ns3/aeth-header.h"
#include "ns3/bth-header.h"
#include "ns3/cnp-header.h"
#include "ns3/crc32.h"
#include "ns3/icrc-trailer.h"
#include "ns3/immediate-data-header.h"
#include "ns3/packet.h"
#include "ns3/pfc-header.h"
#include "ns3/reth-header.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

/** Serialize a header alone into a packet and return its bytes. */
template <typename H>
std::vector<uint8_t>
SerializeAlone(const H& h)
{
    Ptr<Packet> p = Create<Packet>(0);
    p->AddHeader(h);
    std::vector<uint8_t> out(p->GetSize());
    p->CopyData(out.data(), out.size());
    return out;
}

/** Build a packet holding exactly the given bytes. */
Ptr<Packet>
FromBytes(const std::vector<uint8_t>& bytes)
{
    return Create<Packet>(bytes.data(), bytes.size());
}

} // namespace

// ---------------------------------------------------------------------------- BTH

TEST(BthHeaderTest, DefaultsAndSize)
{
    BthHeader h;
    EXPECT_EQ(h.GetSerializedSize(), 12u);
    EXPECT_EQ(BthHeader::SIZE, 12u);
    EXPECT_EQ(h.GetPKey(), 0xFFFF);
    EXPECT_FALSE(h.GetFecn());
    EXPECT_FALSE(h.GetBecn());
    EXPECT_FALSE(h.GetAckRequest());
}

TEST(BthHeaderTest, ExactBytes)
{
    BthHeader h;
    h.SetOpcode(BthHeader::RC_RDMA_WRITE_ONLY);
    h.SetPKey(0xFFFF);
    h.SetBecn(true);
    h.SetDestQp(0x123456);
    h.SetAckRequest(true);
    h.SetPsn(0xABCDEF);
    const std::vector<uint8_t> expected =
        {0x0A, 0x00, 0xFF, 0xFF, 0x40, 0x12, 0x34, 0x56, 0x80, 0xAB, 0xCD, 0xEF};
    EXPECT_EQ(SerializeAlone(h), expected);
}

TEST(BthHeaderTest, AllFlagBits)
{
    BthHeader h;
    h.SetOpcode(BthHeader::CNP);
    h.SetSolicitedEvent(true);
    h.SetMigReq(true);
    h.SetPadCount(3);
    h.SetTransportVersion(0xF);
    h.SetPKey(0x8001);
    h.SetFecn(true);
    h.SetDestQp(0x000001);
    h.SetPsn(0x000002);
    const std::vector<uint8_t> expected =
        {0x81, 0xFF, 0x80, 0x01, 0x80, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02};
    EXPECT_EQ(SerializeAlone(h), expected);

    h.SetSolicitedEvent(false);
    h.SetMigReq(false);
    h.SetPadCount(1);
    h.SetTransportVersion(0);
    EXPECT_EQ(SerializeAlone(h)[1], 0x10);
}

TEST(BthHeaderTest, RoundTrip)
{
    BthHeader h;
    h.SetOpcode(BthHeader::RC_SEND_MIDDLE);
    h.SetSolicitedEvent(true);
    h.SetPadCount(2);
    h.SetTransportVersion(5);
    h.SetPKey(0x1234);
    h.SetFecn(true);
    h.SetBecn(true);
    h.SetDestQp(0xFEDCBA);
    h.SetAckRequest(true);
    h.SetPsn(0x00FFFF);

    Ptr<Packet> p = Create<Packet>(100);
    p->AddHeader(h);
    EXPECT_EQ(p->GetSize(), 112u);
    BthHeader r;
    EXPECT_EQ(p->RemoveHeader(r), 12u);
    EXPECT_EQ(p->GetSize(), 100u);
    EXPECT_EQ(r.GetOpcode(), BthHeader::RC_SEND_MIDDLE);
    EXPECT_TRUE(r.GetSolicitedEvent());
    EXPECT_FALSE(r.GetMigReq());
    EXPECT_EQ(r.GetPadCount(), 2);
    EXPECT_EQ(r.GetTransportVersion(), 5);
    EXPECT_EQ(r.GetPKey(), 0x1234);
    EXPECT_TRUE(r.GetFecn());
    EXPECT_TRUE(r.GetBecn());
    EXPECT_EQ(r.GetDestQp(), 0xFEDCBAu);
    EXPECT_TRUE(r.GetAckRequest());
    EXPECT_EQ(r.GetPsn(), 0x00FFFFu);
}

TEST(BthHeaderTest, TwentyFourBitMasking)
{
    BthHeader h;
    h.SetPsn(0xFF123456);
    h.SetDestQp(0x01ABCDEF);
    EXPECT_EQ(h.GetPsn(), 0x123456u);
    EXPECT_EQ(h.GetDestQp(), 0xABCDEFu);
    h.SetPsn(0x01000000); // wraps to 0
    EXPECT_EQ(h.GetPsn(), 0u);

    h.SetPsn(0xFFFFFFFF);
    h.SetDestQp(0xFFFFFFFF);
    auto bytes = SerializeAlone(h);
    ASSERT_EQ(bytes.size(), 12u);
    // Masked values must not spill into the neighbouring flag bytes.
    EXPECT_EQ(bytes[4], 0x00);
    EXPECT_EQ(bytes[8], 0x00);
    EXPECT_EQ(bytes[5], 0xFF);
    EXPECT_EQ(bytes[11], 0xFF);

    BthHeader r;
    FromBytes(bytes)->RemoveHeader(r);
    EXPECT_EQ(r.GetPsn(), 0xFFFFFFu);
    EXPECT_EQ(r.GetDestQp(), 0xFFFFFFu);
    EXPECT_FALSE(r.GetAckRequest());
    EXPECT_FALSE(r.GetFecn());
}

TEST(BthHeaderTest, ReservedBitsIgnoredOnReceive)
{
    const std::vector<uint8_t> bytes =
        {0x11, 0x00, 0xFF, 0xFF, 0x3F, 0x00, 0x00, 0x07, 0x7F, 0x00, 0x00, 0x09};
    BthHeader r;
    FromBytes(bytes)->RemoveHeader(r);
    EXPECT_EQ(r.GetOpcode(), BthHeader::RC_ACKNOWLEDGE);
    EXPECT_FALSE(r.GetFecn());
    EXPECT_FALSE(r.GetBecn());
    EXPECT_FALSE(r.GetAckRequest());
    EXPECT_EQ(r.GetDestQp(), 7u);
    EXPECT_EQ(r.GetPsn(), 9u);
}

TEST(BthHeaderTest, OpcodeValues)
{
    EXPECT_EQ(BthHeader::RC_SEND_FIRST, 0x00);
    EXPECT_EQ(BthHeader::RC_SEND_MIDDLE, 0x01);
    EXPECT_EQ(BthHeader::RC_SEND_LAST, 0x02);
    EXPECT_EQ(BthHeader::RC_SEND_ONLY, 0x04);
    EXPECT_EQ(BthHeader::RC_RDMA_WRITE_FIRST, 0x06);
    EXPECT_EQ(BthHeader::RC_RDMA_WRITE_MIDDLE, 0x07);
    EXPECT_EQ(BthHeader::RC_RDMA_WRITE_LAST, 0x08);
    EXPECT_EQ(BthHeader::RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, 0x09);
    EXPECT_EQ(BthHeader::RC_RDMA_WRITE_ONLY, 0x0A);
    EXPECT_EQ(BthHeader::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, 0x0B);
    EXPECT_EQ(BthHeader::RC_ACKNOWLEDGE, 0x11);
    EXPECT_EQ(BthHeader::CNP, 0x81);
}

// --------------------------------------------------------------------------- RETH

TEST(RethHeaderTest, ExactBytesAndRoundTrip)
{
    RethHeader h;
    h.SetVirtualAddress(0x0123456789ABCDEFULL);
    h.SetRKey(0xDEADBEEF);
    h.SetDmaLength(0x00010000);
    EXPECT_EQ(h.GetSerializedSize(), 16u);
    const std::vector<uint8_t> expected = {0x01,
                                           0x23,
                                           0x45,
                                           0x67,
                                           0x89,
                                           0xAB,
                                           0xCD,
                                           0xEF,
                                           0xDE,
                                           0xAD,
                                           0xBE,
                                           0xEF,
                                           0x00,
                                           0x01,
                                           0x00,
                                           0x00};
    EXPECT_EQ(SerializeAlone(h), expected);

    Ptr<Packet> p = Create<Packet>(0);
    p->AddHeader(h);
    RethHeader r;
    EXPECT_EQ(p->RemoveHeader(r), 16u);
    EXPECT_EQ(p->GetSize(), 0u);
    EXPECT_EQ(r.GetVirtualAddress(), 0x0123456789ABCDEFULL);
    EXPECT_EQ(r.GetRKey(), 0xDEADBEEFu);
    EXPECT_EQ(r.GetDmaLength(), 0x00010000u);
}

// --------------------------------------------------------------------------- AETH

TEST(AethHeaderTest, ExactBytesAndRoundTrip)
{
    AethHeader h;
    h.SetSyndrome(AethHeader::SYNDROME_ACK);
    h.SetMsn(0x123456);
    EXPECT_EQ(h.GetSerializedSize(), 4u);
    const std::vector<uint8_t> expected = {0x1F, 0x12, 0x34, 0x56};
    EXPECT_EQ(SerializeAlone(h), expected);

    Ptr<Packet> p = Create<Packet>(0);
    p->AddHeader(h);
    AethHeader r;
    EXPECT_EQ(p->RemoveHeader(r), 4u);
    EXPECT_EQ(r.GetSyndrome(), 0x1F);
    EXPECT_EQ(r.GetMsn(), 0x123456u);
    EXPECT_TRUE(r.IsAck());
    EXPECT_FALSE(r.IsNak());
}

TEST(AethHeaderTest, NakAndMasking)
{
    AethHeader h;
    h.SetSyndrome(AethHeader::SYNDROME_NAK_PSN_SEQUENCE_ERROR);
    h.SetMsn(0xFF000001);
    EXPECT_EQ(h.GetMsn(), 1u);
    const std::vector<uint8_t> expected = {0x60, 0x00, 0x00, 0x01};
    EXPECT_EQ(SerializeAlone(h), expected);
    EXPECT_TRUE(h.IsNak());
    EXPECT_FALSE(h.IsAck());

    h.SetSyndrome(0x20); // RNR NAK: neither ACK nor NAK
    EXPECT_FALSE(h.IsAck());
    EXPECT_FALSE(h.IsNak());
    h.SetSyndrome(0x00); // ACK with credit count 0
    EXPECT_TRUE(h.IsAck());
    h.SetSyndrome(0x7F); // NAK, other code
    EXPECT_TRUE(h.IsNak());
}

// ------------------------------------------------------------------ Immediate data

TEST(ImmediateDataHeaderTest, ExactBytesAndRoundTrip)
{
    ImmediateDataHeader h;
    h.SetImmediate(0xCAFEBABE);
    EXPECT_EQ(h.GetSerializedSize(), 4u);
    const std::vector<uint8_t> expected = {0xCA, 0xFE, 0xBA, 0xBE};
    EXPECT_EQ(SerializeAlone(h), expected);

    Ptr<Packet> p = Create<Packet>(0);
    p->AddHeader(h);
    ImmediateDataHeader r;
    EXPECT_EQ(p->RemoveHeader(r), 4u);
    EXPECT_EQ(r.GetImmediate(), 0xCAFEBABEu);
}

// ---------------------------------------------------------------------------- CNP

TEST(CnpHeaderTest, SixteenZeroBytes)
{
    CnpHeader h;
    EXPECT_EQ(h.GetSerializedSize(), 16u);
    EXPECT_EQ(SerializeAlone(h), std::vector<uint8_t>(16, 0x00));
}

TEST(CnpHeaderTest, DeserializeSkipsReservedBytes)
{
    std::vector<uint8_t> bytes(16, 0xAA);
    bytes.push_back(0x55); // one byte after the CNP body
    Ptr<Packet> p = FromBytes(bytes);
    CnpHeader r;
    EXPECT_EQ(p->RemoveHeader(r), 16u);
    ASSERT_EQ(p->GetSize(), 1u);
    uint8_t rest = 0;
    p->CopyData(&rest, 1);
    EXPECT_EQ(rest, 0x55);
}

TEST(CnpHeaderTest, FullCnpHeaderStack)
{
    BthHeader bth;
    bth.SetOpcode(BthHeader::CNP);
    bth.SetBecn(true);
    bth.SetDestQp(0x000ABC);
    Ptr<Packet> p = Create<Packet>(0);
    p->AddHeader(CnpHeader());
    p->AddHeader(bth);
    EXPECT_EQ(p->GetSize(), 28u);
    BthHeader rb;
    CnpHeader rc;
    p->RemoveHeader(rb);
    p->RemoveHeader(rc);
    EXPECT_EQ(p->GetSize(), 0u);
    EXPECT_EQ(rb.GetOpcode(), BthHeader::CNP);
    EXPECT_TRUE(rb.GetBecn());
    EXPECT_EQ(rb.GetDestQp(), 0x000ABCu);
}

// ---------------------------------------------------------------------------- PFC

TEST(PfcHeaderTest, Constants)
{
    EXPECT_EQ(PfcHeader::ETHERTYPE, 0x8808);
    EXPECT_EQ(PfcHeader::OPCODE, 0x0101);
    uint8_t mac[6];
    PfcHeader::GetMulticastAddress().CopyTo(mac);
    const std::array<uint8_t, 6> expected = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};
    EXPECT_EQ(std::vector<uint8_t>(mac, mac + 6),
              std::vector<uint8_t>(expected.begin(), expected.end()));
    EXPECT_EQ(PfcHeader::GetMulticastAddress(), Mac48Address("01:80:C2:00:00:01"));
}

TEST(PfcHeaderTest, FrameBytes)
{
    PfcHeader h;
    EXPECT_TRUE(h.IsValid());
    EXPECT_EQ(h.GetEnableVector(), 0);
    h.SetPauseTime(3, 0xFFFF);
    h.SetPauseTime(0, 0x1234);
    h.SetPauseTime(7, 0x0000); // enabled with zero time = resume
    EXPECT_EQ(h.GetEnableVector(), 0x0089);
    EXPECT_EQ(h.GetSerializedSize(), 46u);
    EXPECT_EQ(14u + h.GetSerializedSize(), 60u);

    std::vector<uint8_t> expected(46, 0x00);
    expected[0] = 0x01; // opcode
    expected[1] = 0x01;
    expected[2] = 0x00; // enable vector
    expected[3] = 0x89;
    expected[4] = 0x12; // class 0
    expected[5] = 0x34;
    expected[10] = 0xFF; // class 3 at offset 4 + 2*3
    expected[11] = 0xFF;
    // class 7 at offset 18..19 is zero; 20..45 are padding
    auto bytes = SerializeAlone(h);
    EXPECT_EQ(bytes.size(), 46u);
    EXPECT_EQ(bytes, expected);
}

TEST(PfcHeaderTest, ClearAndQuery)
{
    PfcHeader h;
    h.SetPauseTime(0, 100);
    h.SetPauseTime(5, 200);
    EXPECT_TRUE(h.IsEnabled(0));
    EXPECT_TRUE(h.IsEnabled(5));
    EXPECT_FALSE(h.IsEnabled(1));
    EXPECT_EQ(h.GetPauseTime(5), 200);
    h.ClearClass(0);
    EXPECT_FALSE(h.IsEnabled(0));
    EXPECT_EQ(h.GetPauseTime(0), 0);
    EXPECT_EQ(h.GetEnableVector(), 0x0020);
    EXPECT_FALSE(h.IsEnabled(8));
    EXPECT_EQ(h.GetPauseTime(8), 0);
}

TEST(PfcHeaderTest, RoundTrip)
{
    PfcHeader h;
    for (uint8_t c = 0; c < 8; ++c)
    {
        if (c % 2 == 1)
        {
            h.SetPauseTime(c, static_cast<uint16_t>(0x1000 + c));
        }
    }
    Ptr<Packet> p = Create<Packet>(0);
    p->AddHeader(h);
    PfcHeader r;
    EXPECT_EQ(p->RemoveHeader(r), 46u);
    EXPECT_EQ(p->GetSize(), 0u);
    EXPECT_TRUE(r.IsValid());
    EXPECT_EQ(r.GetEnableVector(), 0x00AA);
    for (uint8_t c = 0; c < 8; ++c)
    {
        EXPECT_EQ(r.IsEnabled(c), c % 2 == 1);
        EXPECT_EQ(r.GetPauseTime(c), c % 2 == 1 ? 0x1000 + c : 0);
    }
}

TEST(PfcHeaderTest, WrongOpcodeIsInvalid)
{
    // 802.3x PAUSE (opcode 0x0001) is not PFC.
    std::vector<uint8_t> bytes(46, 0x00);
    bytes[0] = 0x00;
    bytes[1] = 0x01;
    bytes[2] = 0x00;
    bytes[3] = 0x01;
    Ptr<Packet> p = FromBytes(bytes);
    PfcHeader r;
    EXPECT_EQ(p->RemoveHeader(r), 46u);
    EXPECT_FALSE(r.IsValid());
    EXPECT_EQ(r.GetOpcode(), 0x0001);

    bytes[1] = 0x01;
    bytes[0] = 0x01;
    PfcHeader ok;
    FromBytes(bytes)->RemoveHeader(ok);
    EXPECT_TRUE(ok.IsValid());
    EXPECT_TRUE(ok.IsEnabled(0));
}

// --------------------------------------------------------------------------- ICRC

namespace
{

constexpr size_t kIpOff = 0;
constexpr size_t kUdpOff = 20;
constexpr size_t kBthOff = 28;
constexpr size_t kPayloadOff = 40;

/** IPv4 (20) + UDP (8, port 4791) + BTH (12) + 16 bytes payload. */
std::vector<uint8_t>
MakeRoceFrame()
{
    std::vector<uint8_t> f = {// IPv4
                              0x45,
                              0x02,
                              0x00,
                              0x3C,
                              0x12,
                              0x34,
                              0x40,
                              0x00,
                              0x40,
                              0x11,
                              0xAB,
                              0xCD,
                              0x0A,
                              0x00,
                              0x00,
                              0x01,
                              0x0A,
                              0x00,
                              0x00,
                              0x02,
                              // UDP
                              0xC0,
                              0x00,
                              0x12,
                              0xB7,
                              0x00,
                              0x28,
                              0x12,
                              0x34,
                              // BTH
                              0x0A,
                              0x00,
                              0xFF,
                              0xFF,
                              0x00,
                              0x12,
                              0x34,
                              0x56,
                              0x80,
                              0xAB,
                              0xCD,
                              0xEF};
    for (uint8_t i = 0; i < 16; ++i)
    {
        f.push_back(static_cast<uint8_t>(0xA0 + i));
    }
    return f;
}

uint32_t
Icrc(const std::vector<uint8_t>& f)
{
    return ComputeRoceIcrc(f.data(), static_cast<uint32_t>(f.size()));
}

} // namespace

TEST(RoceIcrcTest, Crc32IsTheEthernetCrc)
{
    const uint8_t check[] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
    EXPECT_EQ(CRC32Calculate(check, 9), 0xCBF43926u);
}

TEST(RoceIcrcTest, Deterministic)
{
    auto f = MakeRoceFrame();
    const auto copy = f;
    uint32_t a = Icrc(f);
    uint32_t b = Icrc(f);
    EXPECT_EQ(a, b);
    EXPECT_EQ(f, copy); // input untouched
}

TEST(RoceIcrcTest, CoversPayloadAndInvariantFields)
{
    const auto base = MakeRoceFrame();
    const uint32_t ref = Icrc(base);

    auto f = base;
    f[kPayloadOff + 7] ^= 0x01;
    EXPECT_NE(Icrc(f), ref) << "payload byte";

    f = base;
    f.back() ^= 0x80;
    EXPECT_NE(Icrc(f), ref) << "last payload byte";

    f = base;
    f[kIpOff + 15] ^= 0x01;
    EXPECT_NE(Icrc(f), ref) << "IPv4 source address";

    f = base;
    f[kUdpOff + 1] ^= 0x01;
    EXPECT_NE(Icrc(f), ref) << "UDP source port";

    f = base;
    f[kBthOff + 11] ^= 0x01;
    EXPECT_NE(Icrc(f), ref) << "BTH PSN";

    f = base;
    f[kBthOff + 0] = 0x06;
    EXPECT_NE(Icrc(f), ref) << "BTH opcode";
}

TEST(RoceIcrcTest, IgnoresVariantFields)
{
    const auto base = MakeRoceFrame();
    const uint32_t ref = Icrc(base);

    auto f = base;
    f[kIpOff + 1] = 0x03; // TOS: ECN CE
    EXPECT_EQ(Icrc(f), ref) << "ECN";
    f[kIpOff + 1] = 0xB8; // TOS: other DSCP
    EXPECT_EQ(Icrc(f), ref) << "DSCP";

    f = base;
    f[kIpOff + 8] = 0x3F; // TTL decremented
    EXPECT_EQ(Icrc(f), ref) << "TTL";

    f = base;
    f[kIpOff + 10] = 0x00; // IPv4 header checksum
    f[kIpOff + 11] = 0x00;
    EXPECT_EQ(Icrc(f), ref) << "IPv4 checksum";

    f = base;
    f[kUdpOff + 6] = 0x00; // UDP checksum
    f[kUdpOff + 7] = 0x00;
    EXPECT_EQ(Icrc(f), ref) << "UDP checksum";

    f = base;
    f[kBthOff + 4] = 0x80; // FECN
    EXPECT_EQ(Icrc(f), ref) << "FECN";
    f[kBthOff + 4] = 0x40; // BECN
    EXPECT_EQ(Icrc(f), ref) << "BECN";
    f[kBthOff + 4] = 0x3F; // reserved bits
    EXPECT_EQ(Icrc(f), ref) << "BTH resv6";

    // All at once.
    f = base;
    f[kIpOff + 1] = 0xFF;
    f[kIpOff + 8] = 0x01;
    f[kIpOff + 10] = 0x55;
    f[kIpOff + 11] = 0x66;
    f[kUdpOff + 6] = 0x77;
    f[kUdpOff + 7] = 0x88;
    f[kBthOff + 4] = 0xC0;
    EXPECT_EQ(Icrc(f), ref) << "all variant fields";
}

TEST(RoceIcrcTest, EqualsCrcOverMaskedPseudoPacket)
{
    // Build the masked input by hand: 8 x 0xFF, then the frame with the variant
    // fields set to ones.
    const auto base = MakeRoceFrame();
    std::vector<uint8_t> masked(8 + base.size(), 0xFF);
    std::copy(base.begin(), base.end(), masked.begin() + 8);
    masked[8 + kIpOff + 1] = 0xFF;
    masked[8 + kIpOff + 8] = 0xFF;
    masked[8 + kIpOff + 10] = 0xFF;
    masked[8 + kIpOff + 11] = 0xFF;
    masked[8 + kUdpOff + 6] = 0xFF;
    masked[8 + kUdpOff + 7] = 0xFF;
    masked[8 + kBthOff + 4] = 0xFF;
    const uint32_t icrc = Icrc(base);
    EXPECT_EQ(icrc, CRC32Calculate(masked.data(), static_cast<int>(masked.size())));

    // Wire order (LSB first) gives the CRC-32 residue over data || ICRC.
    uint8_t wire[4];
    WriteRoceIcrc(icrc, wire);
    masked.insert(masked.end(), wire, wire + 4);
    EXPECT_EQ(CRC32Calculate(masked.data(), static_cast<int>(masked.size())), 0x2144DF1Cu);
}

TEST(RoceIcrcTest, IhlWithOptions)
{
    // IHL = 6: a 4-byte IPv4 option shifts UDP and BTH.
    auto base = MakeRoceFrame();
    base[0] = 0x46;
    base.insert(base.begin() + 20, {0x01, 0x01, 0x01, 0x01});
    const uint32_t ref = Icrc(base);
    auto f = base;
    f[24 + 6] = 0x00; // UDP checksum, now at 24
    f[32 + 4] = 0xC0; // BTH byte 4, now at 32 + 4
    EXPECT_EQ(Icrc(f), ref);
    f[20] = 0x00; // option byte is covered
    EXPECT_NE(Icrc(f), ref);
}

TEST(RoceIcrcTest, WireByteOrder)
{
    uint8_t out[4];
    WriteRoceIcrc(0x11223344, out);
    EXPECT_EQ(out[0], 0x44);
    EXPECT_EQ(out[1], 0x33);
    EXPECT_EQ(out[2], 0x22);
    EXPECT_EQ(out[3], 0x11);
    EXPECT_EQ(ReadRoceIcrc(out), 0x11223344u);
}

TEST(IcrcTrailerTest, BytesAndRoundTrip)
{
    IcrcTrailer t;
    t.SetIcrc(0x11223344);
    EXPECT_EQ(t.GetSerializedSize(), 4u);
    Ptr<Packet> p = Create<Packet>(0);
    p->AddHeader(ImmediateDataHeader()); // 4 zero bytes before the trailer
    p->AddTrailer(t);
    ASSERT_EQ(p->GetSize(), 8u);
    uint8_t buf[8];
    p->CopyData(buf, 8);
    const std::vector<uint8_t> expected = {0, 0, 0, 0, 0x44, 0x33, 0x22, 0x11};
    EXPECT_EQ(std::vector<uint8_t>(buf, buf + 8), expected);

    IcrcTrailer r;
    EXPECT_EQ(p->RemoveTrailer(r), 4u);
    EXPECT_EQ(p->GetSize(), 4u);
    EXPECT_EQ(r.GetIcrc(), 0x11223344u);
}
