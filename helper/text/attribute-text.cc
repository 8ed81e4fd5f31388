// SPDX-License-Identifier: GPL-2.0-only
#include "attribute-text.h"

#include "quantity-text.h"

#include "ns3/attribute-container.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/string.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

std::string
AttributeKindName(Ptr<const AttributeChecker> checker)
{
    std::string type = checker->GetValueTypeName();
    if (type.rfind("ns3::", 0) == 0)
    {
        type = type.substr(5);
    }
    // From ns-3.41 enums are EnumValue<T>; containers are always templates whose item
    // type the compiler names.
    if (type.rfind("EnumValue<", 0) == 0)
    {
        return "EnumValue";
    }
    if (type.rfind("AttributeContainerValue<", 0) == 0)
    {
        return "list";
    }
    return type;
}

namespace
{

/// AttributeValueFromText for a TimeValue.
Ptr<AttributeValue>
TimeValueFromText(Ptr<const AttributeChecker> checker,
                  const std::string& text,
                  std::string* expected)
{
    Ptr<AttributeValue> v;
    Time t;
    std::string why;
    *expected = "a non-negative duration like 1us or 2ms (s, ms, us, ns, ps; at most an hour)";
    if (TextToTime(text, t, &why))
    {
        v = checker->CreateValidValue(TimeValue(t));
    }
    else if (!why.empty())
    {
        *expected += ": " + why;
    }
    return v;
}

/// AttributeValueFromText for an EnumValue (info: the names, '|'-separated).
Ptr<AttributeValue>
EnumValueFromText(Ptr<const AttributeChecker> checker,
                  const std::string& text,
                  const std::string& info,
                  std::string* expected)
{
    Ptr<AttributeValue> v;
    // ns-3 asserts (in builds with asserts) on a name its EnumChecker lacks: the
    // names, '|'-separated in the checker's information, are compared here first.
    *expected = "one of " + info;
    std::istringstream names(info);
    std::string name;
    while (std::getline(names, name, '|'))
    {
        if (name == text)
        {
            v = checker->CreateValidValue(StringValue(text));
            break;
        }
    }
    return v;
}

/// AttributeValueFromText for an AttributeContainerValue ("list"; info: its description).
Ptr<AttributeValue>
ListValueFromText(Ptr<const AttributeChecker> checker,
                  const std::string& text,
                  const std::string& info,
                  std::string* expected)
{
    Ptr<AttributeValue> v;
    // ns-3 parses the items with their own checker (aborting on "x" for an integer):
    // each item is checked here first, by its kind.
    *expected = info;
    auto list = DynamicCast<const AttributeContainerChecker>(checker);
    std::istringstream items(text);
    std::string item;
    bool ok = list != nullptr;
    while (ok && std::getline(items, item, ','))
    {
        std::string itemExpected;
        ok = AttributeValueFromText(list->GetItemChecker(), item, &itemExpected) != nullptr;
    }
    if (ok)
    {
        v = checker->CreateValidValue(StringValue(text));
    }
    return v;
}

} // namespace

Ptr<AttributeValue>
AttributeValueFromText(Ptr<const AttributeChecker> checker,
                       const std::string& text,
                       std::string* expected)
{
    const std::string type = AttributeKindName(checker);
    const std::string info = checker->GetUnderlyingTypeInformation();
    Ptr<AttributeValue> v;
    if (type == "TimeValue")
    {
        v = TimeValueFromText(checker, text, expected);
    }
    else if (type == "DataRateValue")
    {
        DataRate r;
        *expected = "a positive rate like 400Gbps or 12.5GB/s";
        if (TextToDataRate(text, r))
        {
            v = checker->CreateValidValue(DataRateValue(r));
        }
    }
    else if (type == "UintegerValue" || type == "IntegerValue")
    {
        // ns-3 aborts on trailing text ("18 links"): the whole text must be the integer.
        *expected = "an integer (" + info + ")";
        if (IsIntegerText(text, type == "IntegerValue"))
        {
            v = checker->CreateValidValue(StringValue(text));
        }
    }
    else if (type == "DoubleValue")
    {
        double x;
        *expected = "a number (" + info + ")";
        if (TextToNumber(text, x))
        {
            v = checker->CreateValidValue(DoubleValue(x));
        }
    }
    else if (type == "BooleanValue")
    {
        bool b;
        *expected = FLAG_FORMS;
        if (TextToBool(text, b))
        {
            v = checker->CreateValidValue(BooleanValue(b));
        }
    }
    else if (type == "EnumValue")
    {
        v = EnumValueFromText(checker, text, info, expected);
    }
    else if (type == "StringValue")
    {
        *expected = "text";
        v = checker->CreateValidValue(StringValue(text));
    }
    else if (type == "list")
    {
        v = ListValueFromText(checker, text, info, expected);
    }
    else if (type == "TypeIdValue" || type == "ObjectFactoryValue")
    {
        // Both abort on an unregistered name.
        *expected = "a registered TypeId name like ns3::CalendarScheduler";
        TypeId tid;
        if (TypeId::LookupByNameFailSafe(text, &tid))
        {
            v = checker->CreateValidValue(StringValue(text));
        }
    }
    else
    {
        *expected = "nothing: attributes of type " + type +
                    " cannot be set from a scenario file or the command line";
    }
    return v;
}

std::vector<std::string>
CreatableTypeIds(TypeId base)
{
    std::vector<std::string> names;
    for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        const TypeId tid = TypeId::GetRegistered(i);
        if ((tid == base || tid.IsChildOf(base)) && tid.HasConstructor())
        {
            names.push_back(tid.GetName());
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

} // namespace ns3
