// SPDX-License-Identifier: GPL-2.0-only
#ifndef RANK_MAP_TRANSPORT_H
#define RANK_MAP_TRANSPORT_H

#include "collective-transport.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Some ranks of another carrier, numbered from 0: rank i here is rank GetRanks()[i] of
 * the carrier under it. What a job sees of a shared cluster: its collective engine numbers
 * its own GPUs 0..n-1 while their bytes cross the cluster's one fabric (NICs, NVSwitches,
 * aggregation switches) beside the other jobs'.
 *
 * Every request is forwarded with its ranks translated; what the carrier answers about
 * paths (ports, queues, bundles) is carrier-wide and passes unchanged, so the cost model
 * of "auto" sees the same fabric the job's bytes cross.
 */
class RankMapTransport : public CollectiveTransport
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RankMapTransport();
    ~RankMapTransport() override;

    /**
     * \param carrier the carrier under this one
     * \param ranks rank i here is ranks[i] of carrier (distinct ranks of it; aborts
     *        otherwise)
     */
    void Setup(Ptr<CollectiveTransport> carrier, const std::vector<uint32_t>& ranks);
    /// \return the carrier's rank of each rank here
    const std::vector<uint32_t>& GetRanks() const;
    /// \return the carrier under this one
    Ptr<CollectiveTransport> GetCarrier() const;

    void Send(uint32_t src,
              uint32_t dst,
              uint64_t bytes,
              uint32_t channel,
              DoneCallback done) override;
    uint32_t GetNRanks() const override;
    bool CanReduceInSwitch(const std::vector<uint32_t>& members) const override;
    void SwitchReduce(const std::vector<uint32_t>& members,
                      uint32_t dst,
                      uint64_t bytes,
                      uint32_t channel,
                      DoneCallback done) override;
    void SwitchMulticast(uint32_t src,
                         const std::vector<uint32_t>& members,
                         uint64_t bytes,
                         uint32_t channel,
                         DoneCallback done) override;
    bool CanAllReduceInNetwork(const std::vector<uint32_t>& members) const override;
    void SwitchAllReduce(const std::vector<uint32_t>& members,
                         uint64_t bytes,
                         uint32_t channel,
                         DoneCallback done) override;
    bool CanReduceInNetwork(const std::vector<uint32_t>& members) const override;
    void NetworkReduce(const std::vector<uint32_t>& members,
                       uint32_t dst,
                       uint64_t bytes,
                       uint32_t channel,
                       DoneCallback done) override;
    void NetworkMulticast(uint32_t src,
                          const std::vector<uint32_t>& members,
                          uint64_t bytes,
                          uint32_t channel,
                          DoneCallback done) override;
    CarrierPath DescribePath(uint32_t src, uint32_t dst) const override;
    LinkHardware GetLinkHardware(uint32_t src, uint32_t dst) const override;
    /// \param ranks ranks here \return the carrier's answer for them, translated
    Ptr<CollectiveTransport> GetIsolatedCarrier(const std::vector<uint32_t>& ranks) const override;
    uint32_t GetComputeCapability() const override;
    CarrierSwitchPath DescribeSwitchPath(const std::vector<uint32_t>& members) const override;

  protected:
    void DoDispose() override;

  private:
    /// \param rank a rank here \return the carrier's (aborts when out of range)
    uint32_t Map(uint32_t rank) const;
    /// \param members ranks here \return the carrier's
    std::vector<uint32_t> Map(const std::vector<uint32_t>& members) const;

    Ptr<CollectiveTransport> m_carrier;
    std::vector<uint32_t> m_ranks;
};

} // namespace ns3

#endif // RANK_MAP_TRANSPORT_H
