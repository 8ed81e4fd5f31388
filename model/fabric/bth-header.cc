// SPDX-License-Identifier: GPL-2.0-only

#include "bth-header.h"

#include <iomanip>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(BthHeader);

BthHeader::BthHeader()
    : m_opcode(0),
      m_se(false),
      m_migReq(false),
      m_padCnt(0),
      m_tver(0),
      m_pkey(DEFAULT_PKEY),
      m_fecn(false),
      m_becn(false),
      m_destQp(0),
      m_ackReq(false),
      m_psn(0)
{
}

TypeId
BthHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::BthHeader")
                            .SetParent<Header>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<BthHeader>();
    return tid;
}

TypeId
BthHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
BthHeader::GetSerializedSize() const
{
    return SIZE;
}

void
BthHeader::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    i.WriteU8(m_opcode);
    i.WriteU8((m_se ? 0x80 : 0x00) | (m_migReq ? 0x40 : 0x00) | ((m_padCnt & 0x03) << 4) |
              (m_tver & 0x0F));
    i.WriteHtonU16(m_pkey);
    i.WriteU8((m_fecn ? 0x80 : 0x00) | (m_becn ? 0x40 : 0x00));
    i.WriteU8((m_destQp >> 16) & 0xFF);
    i.WriteU8((m_destQp >> 8) & 0xFF);
    i.WriteU8(m_destQp & 0xFF);
    i.WriteU8(m_ackReq ? 0x80 : 0x00);
    i.WriteU8((m_psn >> 16) & 0xFF);
    i.WriteU8((m_psn >> 8) & 0xFF);
    i.WriteU8(m_psn & 0xFF);
}

uint32_t
BthHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    m_opcode = i.ReadU8();
    uint8_t b = i.ReadU8();
    m_se = (b & 0x80) != 0;
    m_migReq = (b & 0x40) != 0;
    m_padCnt = (b >> 4) & 0x03;
    m_tver = b & 0x0F;
    m_pkey = i.ReadNtohU16();
    b = i.ReadU8();
    m_fecn = (b & 0x80) != 0;
    m_becn = (b & 0x40) != 0;
    m_destQp = static_cast<uint32_t>(i.ReadU8()) << 16;
    m_destQp |= static_cast<uint32_t>(i.ReadU8()) << 8;
    m_destQp |= i.ReadU8();
    b = i.ReadU8();
    m_ackReq = (b & 0x80) != 0;
    m_psn = static_cast<uint32_t>(i.ReadU8()) << 16;
    m_psn |= static_cast<uint32_t>(i.ReadU8()) << 8;
    m_psn |= i.ReadU8();
    return SIZE;
}

void
BthHeader::Print(std::ostream& os) const
{
    std::ios_base::fmtflags flags = os.flags();
    os << "BTH opcode=0x" << std::hex << std::setw(2) << std::setfill('0')
       << static_cast<uint32_t>(m_opcode) << " pkey=0x" << std::setw(4) << m_pkey << std::dec
       << std::setfill(' ') << " se=" << m_se << " m=" << m_migReq
       << " pad=" << static_cast<uint32_t>(m_padCnt) << " tver=" << static_cast<uint32_t>(m_tver)
       << " fecn=" << m_fecn << " becn=" << m_becn << " dqp=" << m_destQp << " ackreq=" << m_ackReq
       << " psn=" << m_psn;
    os.flags(flags);
}

void
BthHeader::SetOpcode(uint8_t opcode)
{
    m_opcode = opcode;
}

uint8_t
BthHeader::GetOpcode() const
{
    return m_opcode;
}

void
BthHeader::SetSolicitedEvent(bool se)
{
    m_se = se;
}

bool
BthHeader::GetSolicitedEvent() const
{
    return m_se;
}

void
BthHeader::SetMigReq(bool migReq)
{
    m_migReq = migReq;
}

bool
BthHeader::GetMigReq() const
{
    return m_migReq;
}

void
BthHeader::SetPadCount(uint8_t padCount)
{
    m_padCnt = padCount & 0x03;
}

uint8_t
BthHeader::GetPadCount() const
{
    return m_padCnt;
}

void
BthHeader::SetTransportVersion(uint8_t tver)
{
    m_tver = tver & 0x0F;
}

uint8_t
BthHeader::GetTransportVersion() const
{
    return m_tver;
}

void
BthHeader::SetPKey(uint16_t pkey)
{
    m_pkey = pkey;
}

uint16_t
BthHeader::GetPKey() const
{
    return m_pkey;
}

void
BthHeader::SetFecn(bool fecn)
{
    m_fecn = fecn;
}

bool
BthHeader::GetFecn() const
{
    return m_fecn;
}

void
BthHeader::SetBecn(bool becn)
{
    m_becn = becn;
}

bool
BthHeader::GetBecn() const
{
    return m_becn;
}

void
BthHeader::SetDestQp(uint32_t destQp)
{
    m_destQp = destQp & 0x00FFFFFF;
}

uint32_t
BthHeader::GetDestQp() const
{
    return m_destQp;
}

void
BthHeader::SetAckRequest(bool ackReq)
{
    m_ackReq = ackReq;
}

bool
BthHeader::GetAckRequest() const
{
    return m_ackReq;
}

void
BthHeader::SetPsn(uint32_t psn)
{
    m_psn = psn & 0x00FFFFFF;
}

uint32_t
BthHeader::GetPsn() const
{
    return m_psn;
}

} // namespace ns3
