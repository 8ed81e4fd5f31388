// SPDX-License-Identifier: GPL-2.0-only
// Differences between ns-3 releases that the module papers over, so that one source
// builds without deprecation warnings against 3.37 (Debian 12), 3.48 and ns-3-dev.
//
// Private to the module: not in the installed ns3/ headers; sources include it by its
// relative path.
#ifndef AI_FABRIC_COMPAT_H
#define AI_FABRIC_COMPAT_H

#include "ns3/buffer.h"
#include "ns3/enum.h"

#include <cstdint>

namespace ns3
{
namespace aifabric
{
namespace detail
{
// From ns-3.41 MakeEnumAccessor takes the enum type as its first template argument.
template <typename E, typename T>
auto
EnumAccessor(T member, int) -> decltype(MakeEnumAccessor<E>(member))
{
    return MakeEnumAccessor<E>(member);
}

template <typename E, typename T>
auto
EnumAccessor(T member, long) -> decltype(MakeEnumAccessor(member))
{
    return MakeEnumAccessor(member);
}
} // namespace detail

/// MakeEnumAccessor that compiles on every supported ns-3 release.
template <typename E, typename T>
auto
MakeEnumAccessorCompat(T member)
{
    return detail::EnumAccessor<E>(member, 0);
}

/**
 * pcap link-layer header type of Ethernet frames: LINKTYPE_ETHERNET = 1 in the
 * tcpdump.org "Link-Layer Header Types" registry. ns-3 spells it PcapHelper::DLT_EN10MB
 * up to 3.48 and iana::LinkType::ETHERNET from 3.49 (which deprecates the former);
 * PcapFileWrapper::Init takes the number in every release.
 */
constexpr uint32_t PCAP_LINKTYPE_ETHERNET = 1;

/**
 * Write a 32-bit value least-significant byte first (the byte order of the RoCEv2 ICRC
 * trailer) and advance the iterator by four bytes. Replaces
 * Buffer::Iterator::WriteHtolsbU32, deprecated in ns-3.48; spelled byte by byte so the
 * order does not depend on how a release documents WriteU32.
 *
 * \param i the iterator to write at
 * \param value the value to write
 */
inline void
WriteU32LsbFirst(Buffer::Iterator& i, uint32_t value)
{
    i.WriteU8(static_cast<uint8_t>(value));
    i.WriteU8(static_cast<uint8_t>(value >> 8));
    i.WriteU8(static_cast<uint8_t>(value >> 16));
    i.WriteU8(static_cast<uint8_t>(value >> 24));
}

/**
 * Read a 32-bit value stored least-significant byte first and advance the iterator by
 * four bytes. Replaces Buffer::Iterator::ReadLsbtohU32, deprecated in ns-3.48.
 *
 * \param i the iterator to read from
 * \return the value
 */
inline uint32_t
ReadU32LsbFirst(Buffer::Iterator& i)
{
    uint32_t value = i.ReadU8();
    value |= static_cast<uint32_t>(i.ReadU8()) << 8;
    value |= static_cast<uint32_t>(i.ReadU8()) << 16;
    value |= static_cast<uint32_t>(i.ReadU8()) << 24;
    return value;
}
} // namespace aifabric
} // namespace ns3

#endif
