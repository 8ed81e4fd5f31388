// SPDX-License-Identifier: GPL-2.0-only
// Differences between ns-3 releases that the module papers over, so that one source
// builds against 3.37 and the newest trees.
#ifndef AI_FABRIC_COMPAT_H
#define AI_FABRIC_COMPAT_H

#include "ns3/enum.h"

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
} // namespace aifabric
} // namespace ns3

#endif
