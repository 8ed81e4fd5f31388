// SPDX-License-Identifier: GPL-2.0-only
#ifndef NCCL_TUNING_MODEL_H
#define NCCL_TUNING_MODEL_H

#include "collective-algorithms.h"
#include "comm-plan.h"

#include "ns3/collective-transport.h"

#include <array>
#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * NCCL's algorithms, in the order of its tuning tables (NCCL_ALGO_*).
 */
enum class NcclAlgorithm : uint8_t
{
    TREE,           //!< Tree: chains inside servers, a double binary tree between them
    RING,           //!< Ring
    COLLNET_DIRECT, //!< CollNet direct: every GPU to the network aggregation (SHARP)
    COLLNET_CHAIN,  //!< CollNet chain: a chain inside servers, then the aggregation
    NVLS,           //!< NVLS: NVSwitch reduction (with CollNet across servers)
    NVLS_TREE,      //!< NVLSTree: NVLS inside servers, a tree between them
    PAT,            //!< PAT: Parallel Aggregated Trees (one GPU per server)
};

/// Number of NcclAlgorithm values.
constexpr uint32_t NCCL_ALGORITHM_COUNT = 7;

/**
 * \param algorithm one of NCCL's algorithms
 * \return NCCL's name of it ("Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS",
 *         "NVLSTree", "PAT": its ncclAlgoStr)
 */
std::string NcclAlgorithmToString(NcclAlgorithm algorithm);

/**
 * The one map from our algorithms to NCCL's: ring and rail-ring (Ring), tree, nvls (NVLS),
 * nvls-ina (NVLS with CollNet across servers: NCCL's NVLS algorithm), nvls-tree (NVLSTree),
 * ina (CollNet direct), pat (PAT).
 * \param algorithm one of ours
 * \param nccl set to NCCL's counterpart when there is one
 * \return false for the algorithms NCCL does not have (halving-doubling, direct,
 *         hierarchical, auto)
 */
bool NcclCounterpart(CollectiveAlgorithm algorithm, NcclAlgorithm* nccl);

/**
 * \param nccl one of NCCL's algorithms
 * \param acrossServers the call spans servers of several GPUs each
 * \return ours that runs it: Ring ring (rail-ring across servers: NCCL's rings are
 *         rail-aligned), Tree tree, NVLS nvls (nvls-ina across servers: NVLS with CollNet),
 *         NVLSTree nvls-tree, CollNet direct and chain ina, PAT pat; AUTO if none
 */
CollectiveAlgorithm NcclToOurs(NcclAlgorithm nccl, bool acrossServers);

/**
 * NCCL v2.30.7's tuning constants (src/graph/tuning.cc), the one copy in the module.
 * \param algorithm NCCL's algorithm
 * \param protocol LL, LL128 or Simple
 * \return baseLatencies[algorithm][protocol], us
 */
double NcclBaseLatencyUs(NcclAlgorithm algorithm, CollectiveProtocol protocol);

/**
 * \param hardware NVLink, PCI or network
 * \param algorithm NCCL's algorithm
 * \param protocol LL, LL128 or Simple
 * \return hwLatencies[hardware][algorithm][protocol], us
 */
double NcclHwLatencyUs(LinkHardware hardware, NcclAlgorithm algorithm, CollectiveProtocol protocol);

/**
 * \param computeCapability CUDA compute capability x 10
 * \return the GPU-to-NIC PCIe bandwidth NCCL sees on the module's machines, GB/s: Gen5
 *         x16 (48) from Hopper on, Gen4 x16 (24) before
 */
double NcclPciGBps(uint32_t computeCapability);

/// NCCL_NET_OVERHEAD on x86 AMD hosts, us (getNetOverhead; Intel: NCCL_DEFAULT_NET_OVERHEAD_US)
constexpr double NCCL_AMD_NET_OVERHEAD_US = 2.0;

/// PAT's latency in NCCL's model (tuning.cc): per network step the network latency / 3.5
constexpr double NCCL_PAT_STEP_LATENCY_DIVISOR = 3.5;
/// PAT's latency in NCCL's model: a linear part of 2.8 us per rank
constexpr double NCCL_PAT_PER_RANK_LATENCY_US = 2.8;

/**
 * \param nodes servers of the call
 * \param computeCapability the GPUs' (80 Ampere, 90 Hopper, 100 Blackwell); used with one
 *        server only, where NCCL indexes the table by GPU
 * \param amdCpu hosts with AMD CPUs (NCCL's other row across servers)
 * \return llMaxBws: LL's ceiling on bus bandwidth, GB/s
 */
double NcclLlMaxBwGBps(uint32_t nodes, uint32_t computeCapability, bool amdCpu);

/**
 * \param nodes servers of the call (two or more)
 * \param computeCapability the GPUs' (90 Hopper, 100 Blackwell)
 * \return perChMaxNVLSTreeBws: NVLSTree's ceiling on one channel's bus bandwidth, GB/s
 *         (Hopper 57.7 for two servers, 45.5 above; Blackwell 96, 80)
 */
double NcclPerChannelMaxNvlsTreeGBps(uint32_t nodes, uint32_t computeCapability);

/**
 * \param computeCapability CUDA compute capability x 10
 * \return NCCL's bandwidth of one NVLink, GB/s (src/graph/topo.h: SM80 20.0, SM90 20.6,
 *         SM100 40.1)
 */
double NcclNvlinkGBps(uint32_t computeCapability);

/**
 * \param computeCapability e.g. 90 for Hopper
 * \return NCCL's compCapIndex: 0 Volta, 1 Ampere, 2 Hopper, 3 Blackwell
 */
uint32_t NcclCompCapIndex(uint32_t computeCapability);

/**
 * \ingroup ai-fabric
 * The machine as NCCL's topology detection would see it: identical servers of GPUs on an
 * NVSwitch, each GPU with its own NIC behind a PCIe switch (the rail-optimised layout the
 * module builds), or one GPU per host. Bandwidths are NCCL's figures in GB/s: an NVLink
 * is 20.0 (Ampere), 20.6 (Hopper), 40.1 (Blackwell) (src/graph/topo.h SMxx_NVLINK_BW); a
 * NIC its port speed / 8 (400 Gb/s: 50); PCIe Gen5 x16 48, Gen4 x16 24.
 */
struct NcclSystem
{
    uint32_t nodes{1};              //!< servers in the call
    uint32_t gpusPerNode{8};        //!< ranks per server
    uint32_t computeCapability{90}; //!< 80, 90, 100
    uint32_t nvlinks{18};           //!< NVLinks per GPU to the NVSwitch (0: none)
    double nvlinkGBps{20.6};        //!< NCCL's bandwidth of one NVLink
    bool nvls{true};                //!< the NVSwitch reduces (NVLS); NCCL also needs cc >= 90
    uint32_t nicsPerNode{8};        //!< NICs per server (one per GPU)
    double netGBps{50};             //!< one NIC
    double pciGBps{48};             //!< the GPU-to-NIC PCIe path
    bool collNet{false};            //!< CollNet (in-network aggregation) is available
    bool amdCpu{false};             //!< AMD hosts: NCCL's AMD rows and 2 us network overhead
};

/**
 * \ingroup ai-fabric
 * One of NCCL's graphs, as ncclTopoCompute (src/graph/search.cc) leaves it: channels and
 * per-channel bandwidth inside a server and across servers.
 */
struct NcclGraph
{
    uint32_t nChannels{0}; //!< channels (0: no graph: the algorithm is not available)
    double bwIntra{0};     //!< GB/s per channel inside a server
    double bwInter{0};     //!< GB/s per channel across servers
};

/**
 * \ingroup ai-fabric
 * NCCL's own prediction of a collective's time (NVIDIA/nccl v2.30.7): the graphs its
 * topology search would find on an NcclSystem, then ncclTopoTuneModel's bandwidth and
 * latency per (function, algorithm, protocol) and ncclTopoGetAlgoTime's time, and the
 * choice NCCL's tuner makes (the least predicted time among the enabled algorithms and
 * protocols). It is a comparison for `collective-perf --ncclModel`, not a carrier: nothing
 * in the simulation uses it.
 *
 * The search is NCCL's for the machines the module builds, not its general graph search:
 * per pattern a closed rule for how many channels fit at a speed (a ring crosses every
 * GPU's NVLink once and one NIC each way; a tree chain the same; an NVLS channel every
 * GPU's NVLink once and its head's twice), walked through NCCL's speed arrays with its
 * rules (start at the fastest speed the paths allow, lower the speed while the next one is
 * within 0.49 of the best found, stop at totalBw, duplicate channels, raise the speed
 * again in pass 2). CollNet's graphs take the tree's channels.
 */
class NcclTuningModel
{
  public:
    /// \param system the machine (at least two ranks in all)
    explicit NcclTuningModel(const NcclSystem& system);

    /// What NCCL's tuner picks for a call.
    struct Choice
    {
        NcclAlgorithm algorithm{NcclAlgorithm::RING};            //!< its algorithm
        CollectiveProtocol protocol{CollectiveProtocol::SIMPLE}; //!< its protocol
        double timeUs{-1};                                       //!< predicted time (-1: none)
    };

    /// \param algorithm NCCL's algorithm \return the graph it runs on
    const NcclGraph& GetGraph(NcclAlgorithm algorithm) const;

    /// \return comm->nChannels: twice the ring's and tree's fewest channels (NCCL's log
    ///         line "N coll channels")
    uint32_t GetCommChannels() const;

    /**
     * \param type the collective (all-reduce, all-gather, reduce-scatter, broadcast,
     *        reduce; NCCL has no model for the others)
     * \param algorithm NCCL's algorithm
     * \param protocol LL, LL128 or Simple
     * \return comm->bandwidths: GB/s of algorithm bandwidth, 0 if NCCL would not run it
     */
    double GetBandwidthGBps(CollectiveType type,
                            NcclAlgorithm algorithm,
                            CollectiveProtocol protocol) const;

    /**
     * \param type the collective
     * \param algorithm NCCL's algorithm
     * \param protocol LL, LL128 or Simple
     * \return comm->latencies, us
     */
    double GetLatencyUs(CollectiveType type,
                        NcclAlgorithm algorithm,
                        CollectiveProtocol protocol) const;

    /**
     * ncclTopoGetAlgoTime for one operation (numPipeOps 1).
     * \param type the collective
     * \param algorithm NCCL's algorithm
     * \param protocol LL, LL128 or Simple
     * \param bytes the size as nccl-tests counts it (all-gather, reduce-scatter: the whole
     *        buffer)
     * \return us, or -1 if NCCL would not run that pair
     */
    double GetTimeUs(CollectiveType type,
                     NcclAlgorithm algorithm,
                     CollectiveProtocol protocol,
                     uint64_t bytes) const;

    /**
     * \param type the collective
     * \param bytes the size as nccl-tests counts it
     * \param only restrict the choice to this algorithm (NCCL_ALGO), or null: every one
     * \param protocol restrict it to this protocol (NCCL_PROTO), or AUTO (NONE too): every one
     * \return NCCL's choice: the least GetTimeUs over the algorithms and protocols allowed
     *         (timeUs -1 if NCCL has no model for the collective or runs none of them)
     */
    Choice Choose(CollectiveType type,
                  uint64_t bytes,
                  const NcclAlgorithm* only = nullptr,
                  CollectiveProtocol protocol = CollectiveProtocol::AUTO) const;

    /// \param type a collective \return whether NCCL's tuning model covers it
    static bool Covers(CollectiveType type);

  private:
    /// \return the graph of a pattern (search, duplication, pass 2)
    NcclGraph Search(NcclAlgorithm pattern, uint32_t minChannels, uint32_t maxChannels) const;
    /// \return channels of a pattern that fit at these speeds (0: none)
    uint32_t Fit(NcclAlgorithm pattern, double bwIntra, double bwInter, uint32_t maxCh) const;
    /// Fills m_bandwidth and m_latency (ncclTopoTuneModel).
    void Tune();
    /// \return the index of a collective in NCCL's function order, -1 if none
    static int FunctionIndex(CollectiveType type);

    NcclSystem m_system;                                 //!< the machine
    std::array<NcclGraph, NCCL_ALGORITHM_COUNT> m_graph; //!< by algorithm
    uint32_t m_commChannels{0};                          //!< comm->nChannels
    /// [function][algorithm][protocol] GB/s and us
    double m_bandwidth[5][NCCL_ALGORITHM_COUNT][3]{};
    double m_latency[5][NCCL_ALGORITHM_COUNT][3]{}; //!< us
};

} // namespace ns3

#endif // NCCL_TUNING_MODEL_H
