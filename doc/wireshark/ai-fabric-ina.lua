-- SPDX-License-Identifier: GPL-2.0-only
-- Wireshark dissector for ai-fabric's in-network aggregation (INA) packets: the header
-- of model/ina/ina-header.h after UDP port 49568 (documented in doc/ai-fabric.rst,
-- "In-network aggregation").
--
--   tshark -X lua_script:doc/wireshark/ai-fabric-ina.lua -Y ai_fabric_ina -r capture.pcap
--
-- or copy it to Wireshark's personal plugins folder.

local ina = Proto("ai_fabric_ina", "ai-fabric In-Network Aggregation")

local types = { [1] = "DATA", [2] = "RESULT" }
local elements = { [1] = "int32", [2] = "float32", [3] = "float16" }

local f = ina.fields
f.version = ProtoField.uint8("ai_fabric_ina.version", "Version", base.DEC, nil, 0xF0)
f.type = ProtoField.uint8("ai_fabric_ina.type", "Type", base.DEC, types, 0x0F)
f.flags = ProtoField.uint8("ai_fabric_ina.flags", "Flags", base.HEX)
f.retransmission = ProtoField.bool("ai_fabric_ina.flags.retransmission", "Retransmission", 8, nil, 0x01)
f.ecn_echo = ProtoField.bool("ai_fabric_ina.flags.ecn_echo", "ECN echo", 8, nil, 0x02)
f.fallback = ProtoField.bool("ai_fabric_ina.flags.fallback", "Fallback", 8, nil, 0x04)
f.no_values = ProtoField.bool("ai_fabric_ina.flags.no_values", "No values", 8, nil, 0x08)
f.directed = ProtoField.bool("ai_fabric_ina.flags.directed", "Directed", 8, nil, 0x10)
f.job = ProtoField.uint16("ai_fabric_ina.job", "Job", base.DEC)
f.sequence = ProtoField.uint32("ai_fabric_ina.sequence", "Sequence", base.DEC)
f.copy = ProtoField.uint32("ai_fabric_ina.copy", "Copy", base.DEC, nil, 0x80000000)
f.slot = ProtoField.uint32("ai_fabric_ina.slot", "Slot", base.DEC, nil, 0x7FFFFFFF)
f.sender = ProtoField.uint16("ai_fabric_ina.sender", "Sender", base.DEC)
f.count = ProtoField.uint16("ai_fabric_ina.count", "Contributor count", base.DEC)
f.bitmap = ProtoField.uint64("ai_fabric_ina.bitmap", "Contributor bitmap", base.HEX)
f.length = ProtoField.uint16("ai_fabric_ina.length", "Fragment length", base.DEC)
f.element = ProtoField.uint8("ai_fabric_ina.element", "Element type", base.DEC, elements)
f.destination = ProtoField.uint8("ai_fabric_ina.destination", "Destination rank", base.DEC)
f.values = ProtoField.bytes("ai_fabric_ina.values", "Values")

local HEADER_BYTES = 28

function ina.dissector(buffer, pinfo, tree)
    if buffer:len() < HEADER_BYTES then
        return 0
    end
    pinfo.cols.protocol = "INA"
    local t = tree:add(ina, buffer(0, HEADER_BYTES))
    t:add(f.version, buffer(0, 1))
    t:add(f.type, buffer(0, 1))
    local flags = t:add(f.flags, buffer(1, 1))
    flags:add(f.retransmission, buffer(1, 1))
    flags:add(f.ecn_echo, buffer(1, 1))
    flags:add(f.fallback, buffer(1, 1))
    flags:add(f.no_values, buffer(1, 1))
    flags:add(f.directed, buffer(1, 1))
    t:add(f.job, buffer(2, 2))
    t:add(f.sequence, buffer(4, 4))
    t:add(f.copy, buffer(8, 4))
    t:add(f.slot, buffer(8, 4))
    t:add(f.sender, buffer(12, 2))
    t:add(f.count, buffer(14, 2))
    t:add(f.bitmap, buffer(16, 8))
    t:add(f.length, buffer(24, 2))
    t:add(f.element, buffer(26, 1))
    t:add(f.destination, buffer(27, 1))
    local length = buffer(24, 2):uint()
    if buffer:len() > HEADER_BYTES then
        t:add(f.values, buffer(HEADER_BYTES, math.min(length, buffer:len() - HEADER_BYTES)))
    end
    local kind = types[bit.band(buffer(0, 1):uint(), 0x0F)] or "?"
    local copy = bit.band(buffer(8, 4):uint(), 0x80000000) ~= 0 and "'" or ""
    local flagBits = buffer(1, 1):uint()
    local extra = ""
    if bit.band(flagBits, 0x08) ~= 0 then
        extra = extra .. " no-values"
    end
    if bit.band(flagBits, 0x10) ~= 0 then
        extra = extra .. string.format(" to=%d", buffer(27, 1):uint())
    end
    pinfo.cols.info = string.format("%s job=%d seq=%d slot=%d%s count=%d len=%d%s", kind,
        buffer(2, 2):uint(), buffer(4, 4):uint(), bit.band(buffer(8, 4):uint(), 0x7FFFFFFF),
        copy, buffer(14, 2):uint(), length, extra)
    return buffer:len()
end

DissectorTable.get("udp.port"):add(49568, ina)
