-- SPDX-License-Identifier: GPL-2.0-only
-- Wireshark dissector for ai-fabric's in-band network telemetry (INT): the header of
-- model/fabric/int-header.h between the UDP header (port 49569) and the BTH of a RoCEv2
-- frame (documented in doc/ai-fabric.rst, "In-band telemetry"). After the hop records it
-- hands the rest to Wireshark's RoCEv2 dissector (the one of UDP port 4791).
--
--   tshark -X lua_script:doc/wireshark/ai-fabric-int.lua -Y ai_fabric_int -r capture.pcap
--
-- or copy it to Wireshark's personal plugins folder.

local int = Proto("ai_fabric_int", "ai-fabric In-band Network Telemetry")

-- Link-rate codes of a hop record, in Gb/s.
local rates = { [0] = 10, [1] = 25, [2] = 40, [3] = 50, [4] = 100, [5] = 200, [6] = 400, [7] = 800 }

local f = int.fields
f.version = ProtoField.uint8("ai_fabric_int.version", "Version", base.DEC, nil, 0xF0)
f.echo = ProtoField.bool("ai_fabric_int.echo", "Echo (an ACK's copy)", 8, nil, 0x01)
f.hops = ProtoField.uint8("ai_fabric_int.hops", "Hops stamped", base.DEC, nil, 0xF0)
f.room = ProtoField.uint8("ai_fabric_int.room", "Room (hop records)", base.DEC, nil, 0x0F)
f.port = ProtoField.uint16("ai_fabric_int.port", "Original UDP destination port", base.DEC)
f.hop = ProtoField.uint64("ai_fabric_int.hop", "Hop record", base.HEX)
f.rate = ProtoField.uint32("ai_fabric_int.hop.rate_gbps", "Link rate (Gb/s)", base.DEC)
f.queue = ProtoField.uint32("ai_fabric_int.hop.queue_bytes", "Queue length (bytes, 80-byte units)", base.DEC)
f.tx = ProtoField.uint32("ai_fabric_int.hop.tx_bytes", "Transmitted bytes (128-byte units, mod 2^27)", base.DEC)
f.ts = ProtoField.uint32("ai_fabric_int.hop.timestamp_ns", "Egress timestamp (ns, mod 2^24)", base.DEC)

local FIXED_BYTES = 4
local HOP_BYTES = 8

function int.dissector(buffer, pinfo, tree)
    if buffer:len() < FIXED_BYTES then
        return 0
    end
    local room = bit.band(buffer(1, 1):uint(), 0x0F)
    local hops = math.min(bit.rshift(buffer(1, 1):uint(), 4), room)
    local size = FIXED_BYTES + room * HOP_BYTES
    if buffer:len() < size then
        return 0
    end
    local t = tree:add(int, buffer(0, size))
    t:add(f.version, buffer(0, 1))
    t:add(f.echo, buffer(0, 1))
    t:add(f.hops, buffer(1, 1))
    t:add(f.room, buffer(1, 1))
    t:add(f.port, buffer(2, 2))
    for i = 0, hops - 1 do
        local at = FIXED_BYTES + i * HOP_BYTES
        local hi = buffer(at, 4):uint()
        local lo = buffer(at + 4, 4):uint()
        local h = t:add(f.hop, buffer(at, HOP_BYTES))
        -- bits 63-61 rate code, 60-44 queue (80 B), 43-24 tx bytes (128 B), 23-0 time (ns)
        h:add(f.rate, buffer(at, 1), rates[bit.rshift(hi, 29)])
        h:add(f.queue, buffer(at, 3), bit.band(bit.rshift(hi, 12), 0x1FFFF) * 80)
        local tx = bit.bor(bit.lshift(bit.band(hi, 0xFFF), 8), bit.rshift(lo, 24))
        h:add(f.tx, buffer(at + 2, 3), tx * 128)
        h:add(f.ts, buffer(at + 5, 3), bit.band(lo, 0xFFFFFF))
    end
    local roce = DissectorTable.get("udp.port"):get_dissector(buffer(2, 2):uint())
    if roce ~= nil and buffer:len() > size then
        roce:call(buffer(size):tvb(), pinfo, tree)
    end
    return buffer:len()
end

DissectorTable.get("udp.port"):add(49569, int)
