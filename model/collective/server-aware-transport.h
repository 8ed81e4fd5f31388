// SPDX-License-Identifier: GPL-2.0-only
#ifndef SERVER_AWARE_TRANSPORT_H
#define SERVER_AWARE_TRANSPORT_H

#include "collective-transport.h"
#include "comm-group.h"

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Sends each transfer over the fabric it would take in a GPU server: transfers between
 * GPUs of one server go to the scale-up carrier (NVLink), the others to the scale-out
 * carrier (RDMA over the RoCE fabric). Ranks keep their numbers on both carriers.
 * Switch reductions and multicasts (NVLS) go to the scale-up carrier when all their
 * ranks share a server.
 */
class ServerAwareTransport : public CollectiveTransport
{
  public:
    static TypeId GetTypeId();

    /**
     * \param group which ranks share a server
     * \param intraServer carrier between GPUs of one server
     * \param interServer carrier between servers
     */
    void Setup(const CommGroup& group,
               Ptr<CollectiveTransport> intraServer,
               Ptr<CollectiveTransport> interServer);

    void Send(uint32_t src,
              uint32_t dst,
              uint64_t bytes,
              uint32_t channel,
              DoneCallback done) override;
    uint32_t GetNRanks() const override;
    /// The carrier the transfer takes describes it; ports stay distinct across the two.
    CarrierPath DescribePath(uint32_t src, uint32_t dst) const override;
    /// The scale-up carrier's figures (switch operations never leave a server).
    CarrierSwitchPath DescribeSwitchPath(const std::vector<uint32_t>& members) const override;
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
    uint64_t GetIntraServerBytes() const;
    uint64_t GetInterServerBytes() const;

  protected:
    void DoDispose() override;

  private:
    /// \return true if every member shares the first member's server
    bool OneServer(const std::vector<uint32_t>& members) const;

    CommGroup m_group;
    Ptr<CollectiveTransport> m_intra;
    Ptr<CollectiveTransport> m_inter;
    uint64_t m_intraBytes{0};
    uint64_t m_interBytes{0};
};

} // namespace ns3

#endif
