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
#include "ns3/object-base.h"

#include <cstdint>
#include <string>
#include <type_traits>

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

namespace detail
{
// Up to ns-3.40 EnumValue holds an int (an enum class does not convert to it); from
// ns-3.41 it is the class template EnumValue<T>, deduced from its argument.
template <typename E>
auto
EnumValueOf(E value, int) -> decltype(EnumValue(value))
{
    return EnumValue(value);
}

template <typename E>
auto
EnumValueOf(E value, long)
{
    return EnumValue(static_cast<int>(value));
}

// Whether MakeEnumChecker takes the enum itself (ns-3.41+, or a plain enum anywhere).
template <typename E>
auto EnumCheckerTakes(E value, int)
    -> decltype(MakeEnumChecker(value, std::string()), std::true_type{});

template <typename E>
std::false_type EnumCheckerTakes(E value, long);

// An argument of MakeEnumChecker as ns-3 up to 3.40 takes it: enums as int.
template <typename T>
auto
AsEnumCheckerArgument(T argument)
{
    if constexpr (std::is_enum_v<T>)
    {
        return static_cast<int>(argument);
    }
    else
    {
        return argument;
    }
}
} // namespace detail

/**
 * An EnumValue holding value, on every supported ns-3 release (enum classes included).
 * \param value the enumerator
 * \return EnumValue (up to 3.40) or EnumValue<E> (3.41 and later)
 */
template <typename E>
auto
MakeEnumValueCompat(E value)
{
    return detail::EnumValueOf(value, 0);
}

/**
 * MakeEnumChecker that takes the enumerators of an enum class on every supported ns-3
 * release: (value, name) pairs, the first the default.
 * \param value the first enumerator
 * \param name its name
 * \param rest further enumerator, name pairs
 * \return the checker
 */
template <typename E, typename... Ts>
Ptr<const AttributeChecker>
MakeEnumCheckerCompat(E value, std::string name, Ts... rest)
{
    if constexpr (decltype(detail::EnumCheckerTakes(value, 0))::value)
    {
        return MakeEnumChecker(value, name, rest...);
    }
    else
    {
        return MakeEnumChecker(static_cast<int>(value),
                               name,
                               detail::AsEnumCheckerArgument(rest)...);
    }
}

/**
 * Accessor of a data member of enum (class) type E through the EnumValue of the running
 * ns-3 release (ns-3 up to 3.40 cannot store an enum class through its own accessor).
 * \tparam E the enum
 * \tparam T the class holding the member
 */
template <typename E, typename T>
class EnumMemberAccessor : public AttributeAccessor
{
  public:
    /// \param member the data member
    explicit EnumMemberAccessor(E T::*member)
        : m_member(member)
    {
    }

    /**
     * \param object the object
     * \param value an EnumValue
     * \return whether value was stored
     */
    bool Set(ObjectBase* object, const AttributeValue& value) const override
    {
        auto* obj = dynamic_cast<T*>(object);
        const auto* v = dynamic_cast<const Value*>(&value);
        if (!obj || !v)
        {
            return false;
        }
        obj->*m_member = static_cast<E>(v->Get());
        return true;
    }

    /**
     * \param object the object
     * \param value set to the member's value (an EnumValue)
     * \return whether value is an EnumValue
     */
    bool Get(const ObjectBase* object, AttributeValue& value) const override
    {
        const auto* obj = dynamic_cast<const T*>(object);
        auto* v = dynamic_cast<Value*>(&value);
        if (!obj || !v)
        {
            return false;
        }
        v->Set(MakeEnumValueCompat(obj->*m_member).Get());
        return true;
    }

    /// \return true
    bool HasGetter() const override
    {
        return true;
    }

    /// \return true
    bool HasSetter() const override
    {
        return true;
    }

  private:
    /// The EnumValue type of this release for E.
    using Value = decltype(MakeEnumValueCompat(E{}));
    E T::*m_member; //!< the member
};

/**
 * \param member a data member of enum (class) type
 * \return its accessor for an EnumValue attribute
 */
template <typename E, typename T>
Ptr<const AttributeAccessor>
MakeEnumMemberAccessor(E T::*member)
{
    return Ptr<const AttributeAccessor>(new EnumMemberAccessor<E, T>(member), false);
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
