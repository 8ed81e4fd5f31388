// SPDX-License-Identifier: GPL-2.0-only
#include "ina-switch-ml-protocol.h"

#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("InaSwitchMlProtocol");
NS_OBJECT_ENSURE_REGISTERED(InaSwitchMlProtocol);

TypeId
InaSwitchMlProtocol::GetTypeId()
{
    static TypeId tid = TypeId("ns3::InaSwitchMlProtocol")
                            .SetParent<InaAggregationProtocol>()
                            .SetGroupName("AiFabric")
                            .AddConstructor<InaSwitchMlProtocol>();
    return tid;
}

InaSwitchMlProtocol::InaSwitchMlProtocol()
{
    NS_LOG_FUNCTION(this);
}

InaSwitchMlProtocol::~InaSwitchMlProtocol() = default;

void
InaSwitchMlProtocol::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_jobs.clear();
    InaAggregationProtocol::DoDispose();
}

void
InaSwitchMlProtocol::SetSlots(uint32_t slots)
{
    NS_LOG_FUNCTION(this << slots);
    m_freeSlots = slots;
}

uint32_t
InaSwitchMlProtocol::GetFreeSlots() const
{
    return m_freeSlots;
}

bool
InaSwitchMlProtocol::CheckJob(const InaJobConfig& config, std::string* why) const
{
    const uint64_t need = 2ull * config.poolSlots;
    if (config.poolSlots == 0 || need > m_freeSlots)
    {
        *why = "job " + std::to_string(config.job) + " needs 2 x " +
               std::to_string(config.poolSlots) + " slots, " + std::to_string(m_freeSlots) +
               " are free";
        return false;
    }
    return true;
}

InaAggregationJob*
InaSwitchMlProtocol::AddJob(InaAggregationJob job)
{
    const uint64_t need = 2ull * job.config.poolSlots;
    const uint16_t id = job.config.job;
    Job& added = m_jobs[id];
    static_cast<InaAggregationJob&>(added) = std::move(job);
    added.slots.assign(need, Slot());
    m_freeSlots -= static_cast<uint32_t>(need);
    return &added;
}

void
InaSwitchMlProtocol::RemoveJob(uint16_t job)
{
    auto it = m_jobs.find(job);
    if (it != m_jobs.end())
    {
        m_freeSlots += static_cast<uint32_t>(it->second.slots.size());
        m_jobs.erase(it);
    }
}

uint32_t
InaSwitchMlProtocol::GetJobSlots(const InaAggregationJob& job) const
{
    return static_cast<uint32_t>(static_cast<const Job&>(job).slots.size());
}

void
InaSwitchMlProtocol::Process(InaAggregationJob& record,
                             uint32_t inPort,
                             const InaHeader& header,
                             bool ce)
{
    Job& job = static_cast<Job&>(record);
    if (header.slot >= job.config.poolSlots)
    {
        NS_LOG_DEBUG("discard: slot " << header.slot << " outside job " << header.job
                                      << "'s pool of " << job.config.poolSlots);
        CountDiscarded();
        return;
    }
    if (header.type == InaHeader::DATA && job.portChild[inPort] >= 0)
    {
        HandleData(job, static_cast<uint32_t>(job.portChild[inPort]), header, ce);
    }
    else if (header.type == InaHeader::RESULT && inPort == job.config.parentPort)
    {
        HandleResult(job, header);
    }
    else
    {
        NS_LOG_DEBUG("discard: INA " << header << " from port " << inPort
                                     << ", which is not its sender's place in the tree");
        CountDiscarded();
    }
}

void
InaSwitchMlProtocol::HandleData(Job& job, uint32_t child, const InaHeader& header, bool ce)
{
    Slot& slot = job.slots[2 * header.slot + (header.copy ? 1 : 0)];
    if (!slot.used || slot.sequence != header.sequence)
    {
        if (slot.used && header.sequence < slot.sequence)
        {
            NS_LOG_DEBUG("discard: job " << header.job << " sequence " << header.sequence
                                         << " is older than slot " << header.slot << "'s "
                                         << slot.sequence);
            CountDiscarded();
            return;
        }
        slot = Slot();
        slot.used = true;
        slot.sequence = header.sequence;
    }
    const uint64_t bit = 1ull << child;
    if (slot.bitmap & bit)
    {
        CountDuplicate();
        if (slot.complete)
        {
            NS_LOG_LOGIC("job " << header.job << " seq " << header.sequence << ": duplicate from "
                                << "child " << child << ", result sent again to it");
            SendResult(job, child, header, slot, true);
        }
        else if (slot.sentUp)
        {
            NS_LOG_LOGIC("job " << header.job << " seq " << header.sequence << ": duplicate from "
                                << "child " << child << ", aggregate sent again to the parent");
            SendAggregate(job, header, slot, true);
        }
        else
        {
            NS_LOG_LOGIC("job " << header.job << " seq " << header.sequence
                                << ": duplicate from child " << child << " ignored");
        }
        return;
    }
    CountContribution();
    slot.bitmap |= bit;
    slot.count = static_cast<uint16_t>(slot.count + header.count);
    slot.length = std::max(slot.length, header.length);
    slot.ecn = slot.ecn || ce || (header.flags & InaHeader::ECN_ECHO);
    slot.values = slot.values || !(header.flags & InaHeader::NO_VALUES);
    if (slot.bitmap != job.fullMask)
    {
        return;
    }
    NotifySlotComplete(header.job, header.sequence, slot.count);
    const bool root = job.config.parentPort == InaJobConfig::NO_PARENT;
    slot.complete = root;
    slot.sentUp = !root;
    SendSum(job, header, slot);
}

void
InaSwitchMlProtocol::HandleResult(Job& job, const InaHeader& header)
{
    Slot& slot = job.slots[2 * header.slot + (header.copy ? 1 : 0)];
    if (!slot.used || slot.sequence != header.sequence)
    {
        NS_LOG_DEBUG("discard: result for job " << header.job << " sequence " << header.sequence
                                                << " does not match slot " << header.slot);
        CountDiscarded();
        return;
    }
    slot.complete = true;
    slot.count = header.count;
    slot.length = header.length;
    slot.ecn = slot.ecn || (header.flags & InaHeader::ECN_ECHO);
    slot.values = !(header.flags & InaHeader::NO_VALUES);
    NS_LOG_LOGIC("job " << header.job << " seq " << header.sequence << ": result from the "
                        << "parent (" << header.count << " workers), to "
                        << job.config.childPorts.size() << " children");
    for (uint32_t c = 0; c < job.config.childPorts.size(); ++c)
    {
        SendResult(job, c, header, slot, (header.flags & InaHeader::RETRANSMISSION) != 0);
    }
}

} // namespace ns3
