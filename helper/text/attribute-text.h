// SPDX-License-Identifier: GPL-2.0-only
#ifndef ATTRIBUTE_TEXT_H
#define ATTRIBUTE_TEXT_H

#include "ns3/attribute.h"
#include "ns3/ptr.h"
#include "ns3/type-id.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * An attribute value from text, checked by the attribute's kind before ns-3 parses it
 * (ns-3 aborts on a Time "x", an integer "18 links", an unknown TypeId): durations and
 * rates as TextToTime and TextToDataRate read them, integers in full digits, numbers
 * in full, booleans true/false/1/0, strings and enums as the checker accepts, TypeIds
 * and object factories by a registered TypeId name. Other kinds (pointers, ...) are
 * refused. The checker's own range applies.
 * \param checker the attribute's (or global value's) checker
 * \param text the text
 * \param expected set to what was expected on failure ("an integer (uint32_t 1:64)", ...)
 * \return the value, or null
 */
Ptr<AttributeValue> AttributeValueFromText(Ptr<const AttributeChecker> checker,
                                           const std::string& text,
                                           std::string* expected);

/**
 * \ingroup ai-fabric
 * The kind of an attribute as messages name it: its value type without "ns3::", with
 * "EnumValue" for every enum (EnumValue<T> from ns-3.41) and "list" for containers.
 * \param checker the attribute's checker
 * \return the name
 */
std::string AttributeKindName(Ptr<const AttributeChecker> checker);

/**
 * The registered TypeIds that are base or derive from it and can be created, by name.
 * \param base the base TypeId
 * \return their names, sorted
 */
std::vector<std::string> CreatableTypeIds(TypeId base);

} // namespace ns3

#endif // ATTRIBUTE_TEXT_H
