// SPDX-License-Identifier: GPL-2.0-only
#ifndef NVLINK_TRANSPORT_H
#define NVLINK_TRANSPORT_H

#include "collective-transport.h"

#include "ns3/nv-switch-fabric.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * The collective carrier over one server's NVLink: rank r is GPU r of an NvSwitchFabric.
 *
 * Thin, as RdmaTransport is over RdmaNic: transfers, switch reductions and multicasts go to
 * the fabric unchanged, and the fabric's figures (port rates, latencies, efficiencies,
 * chunk size, reduction engine) become the cost model's CarrierPath and CarrierSwitchPath.
 * The fabric's attributes (ns3::NvSwitchFabric::*) are the NVLink model's parameters;
 * this class has none.
 */
class NvLinkTransport : public CollectiveTransport
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    NvLinkTransport();
    ~NvLinkTransport() override;

    /**
     * Set the fabric the ranks are GPUs of (before the first transfer).
     * \param fabric one server's NVSwitch and GPUs
     */
    void SetFabric(Ptr<NvSwitchFabric> fabric);
    /// \return the fabric (null until SetFabric)
    Ptr<NvSwitchFabric> GetFabric() const;

    void Send(uint32_t src,
              uint32_t dst,
              uint64_t bytes,
              uint32_t channel,
              DoneCallback done) override;
    /// \return the fabric's GPUs
    uint32_t GetNRanks() const override;
    /**
     * Ports are the GPUs' uplinks and downlinks; a transfer gets the slower port's payload
     * rate, both ports' latency, and one chunk stored in the switch.
     * \param src sending GPU
     * \param dst receiving GPU
     * \return the path's figures
     */
    CarrierPath DescribePath(uint32_t src, uint32_t dst) const override;
    /**
     * \param src sending GPU
     * \param dst receiving GPU
     * \return LinkHardware::NVLINK: every transfer crosses NVLink
     */
    LinkHardware GetLinkHardware(uint32_t src, uint32_t dst) const override;
    /// \return the fabric's ComputeCapability
    uint32_t GetComputeCapability() const override;
    /**
     * The members' ports at the NVLS payload rate (or the reduction engine's share, if
     * lower).
     * \param members GPUs of the multicast group
     * \return the figures, ports in the order of members
     */
    CarrierSwitchPath DescribeSwitchPath(const std::vector<uint32_t>& members) const override;
    /// \param members GPUs \return whether the fabric reduces over them (NvlsSupported)
    bool CanReduceInSwitch(const std::vector<uint32_t>& members) const override;
    /// \param ranks GPUs of a call \return this carrier (its NVSwitch is the server's
    ///         own) when they are GPUs of the fabric
    Ptr<CollectiveTransport> GetIsolatedCarrier(const std::vector<uint32_t>& ranks) const override;
    /// \return NvSwitchFabric::IsQuiet
    bool IsQuiet() const override;
    /// \return a record of the fabric's counters and posts now
    Ptr<CarrierRecord> StartRecord() const override;
    /**
     * \param record StartRecord's
     * \param posts the call's transfers and operations
     * \return false when the fabric had other posts meanwhile or is not quiet now;
     *         otherwise the record holds the call's duration and its counters
     *         (NvSwitchFabric::Difference)
     */
    bool EndRecord(CarrierRecord& record, uint64_t posts) const override;
    /// \param record an EndRecord-completed record of this carrier: NvSwitchFabric::Replay
    void Replay(const CarrierRecord& record) override;
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

  protected:
    void DoDispose() override;

  private:
    /// \return the fabric; aborts, naming this class, if SetFabric was never called
    const Ptr<NvSwitchFabric>& Fabric() const;

    Ptr<NvSwitchFabric> m_fabric;
};

} // namespace ns3

#endif // NVLINK_TRANSPORT_H
