// SPDX-License-Identifier: GPL-2.0-only
// NCCL's tuning model (NVIDIA/nccl v2.30.7): its constants (src/graph/tuning.cc) and its
// predicted time and choice per call; the graphs its search finds are in
// nccl-graph-search.cc.
#include "nccl-tuning-model.h"

#include "collective-protocol.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NcclTuningModel");

namespace
{
constexpr uint32_t LL = 0;     //!< NCCL_PROTO_LL
constexpr uint32_t LL128 = 1;  //!< NCCL_PROTO_LL128
constexpr uint32_t SIMPLE = 2; //!< NCCL_PROTO_SIMPLE

/// The one table of NCCL's algorithm names (ncclAlgoStr), in NcclAlgorithm order.
const char* const ALGORITHM_NAMES[NCCL_ALGORITHM_COUNT] =
    {"Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"};

/// baseLatencies[algorithm][LL, LL128, Simple], us
constexpr double BASE_LATENCY_US[NCCL_ALGORITHM_COUNT][3] = {
    {6.8, 14.0, 8.4}, // Tree
    {6.6, 14.0, 8.4}, // Ring
    {0, 0, 0},        // CollNetDirect
    {0, 0, 0},        // CollNetChain
    {0, 0, 0},        // NVLS
    {0, 0, 0},        // NVLSTree
    {8.0, 8.0, 8.0},  // PAT
};

/// hwLatencies[NVLink, PCI, network][algorithm][LL, LL128, Simple], us
constexpr double HW_LATENCY_US[3][NCCL_ALGORITHM_COUNT][3] = {
    {
        // NVLink
        {0.6, 1.25, 4.0}, // Tree
        {0.6, 1.9, 3.4},  // Ring
        {0, 0, 3.7},      // CollNetDirect
        {0, 0, 2.8},      // CollNetChain
        {0, 0, 25},       // NVLS
        {0, 0, 25},       // NVLSTree
        {0, 0, 4.0},      // PAT
    },
    {
        // PCI
        {1.0, 1.9, 4.0}, // Tree
        {1.0, 2.5, 5.7}, // Ring
        {0, 0, 3.7},     // CollNetDirect
        {0, 0, 2.8},     // CollNetChain
        {0, 0, 0},       // NVLS
        {0, 0, 0},       // NVLSTree
        {0, 0, 4.0},     // PAT
    },
    {
        // network
        {5.0, 8.5, 14}, // Tree
        {2.7, 4.0, 14}, // Ring
        {0, 0, 31},     // CollNetDirect
        {0, 0, 30},     // CollNetChain
        {0, 0, 18},     // NVLS
        {0, 0, 20.9},   // NVLSTree
        {0, 0, 14},     // PAT
    },
};

// Rows: Volta, Ampere, Hopper, Blackwell (compCapIndex); columns: 1 server, 2, more.
/// llMaxBws, GB/s; across servers row 0 is x86 Intel, row 1 AMD (NCCL's index1)
constexpr double LL_MAX_BWS[4][3] = {{39.0, 39.0, 20.4},
                                     {87.7, 22.5, 19.0},
                                     {141.0, 45.0, 35.0},
                                     {2 * 141.0, 2 * 45.0, 2 * 35.0}};
/// perChMaxRingLL128Bws, GB/s
constexpr double PER_CH_MAX_RING_LL128[4][3] = {{20.0, 20.0, 20.0},
                                                {20.0, 20.0, 20.0},
                                                {36.7, 36.7, 36.7},
                                                {40.0, 40.0, 40.0}};
/// perChMaxTreeLL128Bws, GB/s
constexpr double PER_CH_MAX_TREE_LL128[4][3] = {{20.0, 20.0, 20.0},
                                                {20.0, 20.0, 20.0},
                                                {36.7, 36.7, 29.0},
                                                {55.6, 31.67, 20.0}};
/// perChMaxTreeBws, GB/s
constexpr double PER_CH_MAX_TREE[4][3] = {{26.5, 18.5, 10.0},
                                          {24.0, 23.6, 17.8},
                                          {38.7, 41.4, 36.0},
                                          {70.0, 42.8, 24.0}};
/// perChMaxNVLSTreeBws, GB/s
constexpr double PER_CH_MAX_NVLS_TREE[4][3] = {{26.5, 18.5, 10.0},
                                               {24.0, 23.6, 17.8},
                                               {0.0, 57.7, 45.5},
                                               {0.0, 96.0, 80.0}};
/// nvlsEfficiency by compCapIndex
constexpr double NVLS_EFFICIENCY[4] = {0.0, 0.0, 0.85, 0.74};

/// treeCorrectionFactor[protocol][log2(bytes / 64)], 64 B to 256 MiB
constexpr double TREE_CORRECTION[3][24] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6,  .5,
     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6,  .6,
     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
     .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
};

constexpr uint32_t MAX_CHANNELS = 64;    //!< MAXCHANNELS
constexpr uint32_t MAX_DIRECT_ARITY = 7; //!< NCCL_MAX_DIRECT_ARITY
constexpr uint32_t MAX_NVLS_ARITY = 32;  //!< NCCL_MAX_NVLS_ARITY

/// \return floor(log2(n)), -1 for n <= 0 (NCCL's log2i)
int
Log2i(uint64_t n)
{
    int l = -1;
    while (n > 0)
    {
        n >>= 1;
        ++l;
    }
    return l;
}

/// \return NCCL's column of a protocol
uint32_t
Column(CollectiveProtocol protocol)
{
    NS_ABORT_MSG_IF(protocol != CollectiveProtocol::LL && protocol != CollectiveProtocol::LL128 &&
                        protocol != CollectiveProtocol::SIMPLE,
                    "NCCL's tables have no column for protocol "
                        << CollectiveProtocolToString(protocol));
    return static_cast<uint32_t>(protocol);
}
} // namespace

std::string
NcclAlgorithmToString(NcclAlgorithm algorithm)
{
    return ALGORITHM_NAMES[static_cast<uint32_t>(algorithm)];
}

namespace
{
/// The one table between our algorithms and NCCL's: each of ours that NCCL has, in the
/// order NcclToOurs prefers (one server first, then across servers).
struct Counterpart
{
    CollectiveAlgorithm ours; //!< our algorithm
    NcclAlgorithm nccl;       //!< NCCL's
    bool acrossServers;       //!< what NCCL's runs across servers of several GPUs
};

const Counterpart COUNTERPARTS[] = {
    {CollectiveAlgorithm::RING, NcclAlgorithm::RING, false},
    {CollectiveAlgorithm::RAIL_RING, NcclAlgorithm::RING, true}, // NCCL's rings are rail-aligned
    {CollectiveAlgorithm::TREE, NcclAlgorithm::TREE, false},
    {CollectiveAlgorithm::TREE, NcclAlgorithm::TREE, true},
    {CollectiveAlgorithm::NVLS, NcclAlgorithm::NVLS, false},
    {CollectiveAlgorithm::NVLS_INA, NcclAlgorithm::NVLS, true}, // NVLS + CollNet (SHARP)
    {CollectiveAlgorithm::NVLS_TREE, NcclAlgorithm::NVLS_TREE, true},
    {CollectiveAlgorithm::INA, NcclAlgorithm::COLLNET_DIRECT, false},
    {CollectiveAlgorithm::INA, NcclAlgorithm::COLLNET_DIRECT, true},
    {CollectiveAlgorithm::INA, NcclAlgorithm::COLLNET_CHAIN, false},
    {CollectiveAlgorithm::INA, NcclAlgorithm::COLLNET_CHAIN, true},
    {CollectiveAlgorithm::PAT, NcclAlgorithm::PAT, false},
    {CollectiveAlgorithm::PAT, NcclAlgorithm::PAT, true},
};
} // namespace

bool
NcclCounterpart(CollectiveAlgorithm algorithm, NcclAlgorithm* nccl)
{
    for (const Counterpart& c : COUNTERPARTS)
    {
        if (c.ours == algorithm)
        {
            *nccl = c.nccl;
            return true;
        }
    }
    return false;
}

CollectiveAlgorithm
NcclToOurs(NcclAlgorithm nccl, bool acrossServers)
{
    for (const Counterpart& c : COUNTERPARTS)
    {
        if (c.nccl == nccl && c.acrossServers == acrossServers)
        {
            return c.ours;
        }
    }
    return CollectiveAlgorithm::AUTO; // NVLSTree inside one server: none
}

double
NcclBaseLatencyUs(NcclAlgorithm algorithm, CollectiveProtocol protocol)
{
    return BASE_LATENCY_US[static_cast<uint32_t>(algorithm)][Column(protocol)];
}

double
NcclHwLatencyUs(LinkHardware hardware, NcclAlgorithm algorithm, CollectiveProtocol protocol)
{
    return HW_LATENCY_US[static_cast<uint32_t>(hardware)][static_cast<uint32_t>(algorithm)]
                        [Column(protocol)];
}

double
NcclNvlinkGBps(uint32_t computeCapability)
{
    return computeCapability >= 100 ? 40.1 : computeCapability >= 90 ? 20.6 : 20.0;
}

double
NcclPciGBps(uint32_t computeCapability)
{
    return computeCapability >= 90 ? 48.0 : 24.0;
}

uint32_t
NcclCompCapIndex(uint32_t computeCapability)
{
    return computeCapability >= 100  ? 3
           : computeCapability >= 90 ? 2
           : computeCapability >= 80 ? 1
                                     : 0;
}

double
NcclLlMaxBwGBps(uint32_t nodes, uint32_t computeCapability, bool amdCpu)
{
    const uint32_t index1 = nodes == 1 ? NcclCompCapIndex(computeCapability) : (amdCpu ? 1 : 0);
    const uint32_t index2 = nodes <= 2 ? nodes - 1 : 2;
    return LL_MAX_BWS[index1][index2];
}

double
NcclPerChannelMaxNvlsTreeGBps(uint32_t nodes, uint32_t computeCapability)
{
    return PER_CH_MAX_NVLS_TREE[NcclCompCapIndex(computeCapability)][nodes <= 2 ? nodes - 1 : 2];
}

NcclTuningModel::NcclTuningModel(const NcclSystem& system)
    : m_system(system)
{
    NS_ABORT_MSG_IF(system.nodes == 0 || system.gpusPerNode == 0 ||
                        system.nodes * system.gpusPerNode < 2,
                    "NcclTuningModel: a call of at least two ranks");
    NS_ABORT_MSG_IF(system.nodes > 1 && (system.nicsPerNode == 0 || system.netGBps <= 0),
                    "NcclTuningModel: servers need NICs");
    const uint32_t g = system.gpusPerNode;
    const bool nvsOk = system.nvls && system.computeCapability >= 90 && g > 1 && system.nvlinks;
    m_graph[static_cast<uint32_t>(NcclAlgorithm::RING)] =
        Search(NcclAlgorithm::RING, 1, MAX_CHANNELS / 2);
    const uint32_t ringChannels = m_graph[static_cast<uint32_t>(NcclAlgorithm::RING)].nChannels;
    NcclGraph tree = Search(NcclAlgorithm::TREE, ringChannels, ringChannels);
    m_graph[static_cast<uint32_t>(NcclAlgorithm::TREE)] = tree;
    m_graph[static_cast<uint32_t>(NcclAlgorithm::PAT)] = tree; // NCCL runs PAT on the tree graph
    if (system.collNet && system.nodes > 1)
    {
        m_graph[static_cast<uint32_t>(NcclAlgorithm::COLLNET_CHAIN)] = tree;
        m_graph[static_cast<uint32_t>(NcclAlgorithm::COLLNET_DIRECT)] = tree;
    }
    if (nvsOk)
    {
        const uint32_t minChannels = system.nodes == 1 ? std::min(MAX_NVLS_ARITY, g) : 1;
        NcclGraph nvls = Search(NcclAlgorithm::NVLS, minChannels, std::min(MAX_NVLS_ARITY, g));
        m_graph[static_cast<uint32_t>(NcclAlgorithm::NVLS)] = nvls;
        m_graph[static_cast<uint32_t>(NcclAlgorithm::NVLS_TREE)] = nvls;
    }
    // comm->nChannels: the ring's and the tree's least, doubled by ncclTopoPostset.
    m_commChannels = std::min(MAX_CHANNELS, 2 * std::min(ringChannels, tree.nChannels));
    for (uint32_t a = 0; a < NCCL_ALGORITHM_COUNT; ++a)
    {
        NS_LOG_LOGIC("graph " << ALGORITHM_NAMES[a] << ": " << m_graph[a].nChannels << " channels, "
                              << m_graph[a].bwIntra << "/" << m_graph[a].bwInter << " GB/s");
    }
    Tune();
}

int
NcclTuningModel::FunctionIndex(CollectiveType type)
{
    switch (type)
    {
    case CollectiveType::BROADCAST:
        return 0;
    case CollectiveType::REDUCE:
        return 1;
    case CollectiveType::ALL_GATHER:
        return 2;
    case CollectiveType::REDUCE_SCATTER:
        return 3;
    case CollectiveType::ALL_REDUCE:
        return 4;
    default:
        return -1;
    }
}

bool
NcclTuningModel::Covers(CollectiveType type)
{
    return FunctionIndex(type) >= 0;
}

void
NcclTuningModel::Tune()
{
    const NcclSystem& s = m_system;
    const uint32_t nNodes = s.nodes;
    const uint32_t nRanks = s.nodes * s.gpusPerNode;
    const double ppn = static_cast<double>(nRanks) / nNodes;
    const uint32_t cc = s.computeCapability;
    const uint32_t cci = NcclCompCapIndex(cc);
    const uint32_t index2 = nNodes <= 2 ? nNodes - 1 : 2;
    const double llMaxBw = NcclLlMaxBwGBps(nNodes, cc, s.amdCpu);
    const double perChMaxTreeBw = PER_CH_MAX_TREE[cci][index2];
    const double perChMaxRingLL128Bw = PER_CH_MAX_RING_LL128[cci][index2];
    const double perChMaxTreeLL128Bw = PER_CH_MAX_TREE_LL128[cci][index2];
    const double perChMaxNVLSTreeBw = NcclPerChannelMaxNvlsTreeGBps(nNodes, cc);
    const LinkHardware intraHw =
        s.gpusPerNode > 1 && s.nvlinks > 0 ? LinkHardware::NVLINK : LinkHardware::PCI;
    const LinkHardware hw = nNodes == 1 ? intraHw : LinkHardware::NET;
    const double netOverheadUs = // getNetOverhead, x86
        s.amdCpu ? NCCL_AMD_NET_OVERHEAD_US : NCCL_DEFAULT_NET_OVERHEAD_US;
    const bool patEnabled = nNodes == nRanks && cc >= 60;
    const auto log2Nodes = static_cast<double>(Log2i(nNodes));

    for (int coll = 0; coll < 5; ++coll)
    {
        const bool allReduce = coll == 4;
        const bool gatherScatter = coll == 2 || coll == 3;
        const uint32_t nsteps = allReduce ? 2 * (nRanks - 1) : gatherScatter ? nRanks - 1 : nRanks;
        for (uint32_t a = 0; a < NCCL_ALGORITHM_COUNT; ++a)
        {
            const auto algo = static_cast<NcclAlgorithm>(a);
            const NcclGraph& graph = m_graph[a];
            if ((coll == 0 || coll == 1) && algo != NcclAlgorithm::RING)
            {
                continue;
            }
            if (gatherScatter && algo != NcclAlgorithm::PAT && algo != NcclAlgorithm::RING &&
                algo != NcclAlgorithm::NVLS && algo != NcclAlgorithm::COLLNET_DIRECT)
            {
                continue;
            }
            if (allReduce && algo == NcclAlgorithm::PAT)
            {
                continue;
            }
            for (uint32_t p = 0; p < 3; ++p)
            {
                if ((algo == NcclAlgorithm::NVLS || algo == NcclAlgorithm::NVLS_TREE) &&
                    p != SIMPLE)
                {
                    continue;
                }
                if (algo == NcclAlgorithm::PAT && (p != SIMPLE || !patEnabled))
                {
                    continue;
                }
                const bool collnet =
                    algo == NcclAlgorithm::COLLNET_DIRECT || algo == NcclAlgorithm::COLLNET_CHAIN;
                double bw = nNodes <= 2 || collnet ? graph.bwIntra : graph.bwInter;
                if (algo == NcclAlgorithm::NVLS_TREE || algo == NcclAlgorithm::NVLS)
                {
                    if (graph.nChannels < 2)
                    {
                        continue;
                    }
                    double intraBw = graph.bwIntra * NVLS_EFFICIENCY[cci] * (graph.nChannels - 1) /
                                     graph.nChannels;
                    intraBw *= allReduce ? 2.0 : (ppn - 1) / ppn;
                    const double interBw =
                        graph.bwInter * ((nNodes <= 2 && algo == NcclAlgorithm::NVLS_TREE) ? 2 : 1);
                    bw = std::min({intraBw,
                                   interBw,
                                   algo == NcclAlgorithm::NVLS_TREE
                                       ? perChMaxNVLSTreeBw
                                       : std::numeric_limits<double>::max()});
                }
                double busBw = graph.nChannels * bw;
                if (algo == NcclAlgorithm::RING && p == LL)
                {
                    busBw = std::min(llMaxBw, busBw * .5);
                }
                if (algo == NcclAlgorithm::RING && p == LL128)
                {
                    busBw = std::min(busBw * 0.92, graph.nChannels * perChMaxRingLL128Bw);
                }
                if (algo == NcclAlgorithm::TREE && allReduce)
                {
                    busBw = std::min(busBw * .92, graph.nChannels * perChMaxTreeBw);
                }
                if (algo == NcclAlgorithm::TREE && p == LL)
                {
                    busBw = std::min(busBw * 1.0 / 3.8, llMaxBw);
                }
                if (algo == NcclAlgorithm::TREE && p == LL128)
                {
                    busBw = std::min(busBw * (nNodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                                     graph.nChannels * perChMaxTreeLL128Bw);
                }
                if (algo == NcclAlgorithm::PAT)
                {
                    busBw *= .75;
                }
                if (collnet && p != SIMPLE)
                {
                    busBw = 0;
                }
                if (algo == NcclAlgorithm::COLLNET_DIRECT && p == SIMPLE)
                {
                    if (gatherScatter)
                    {
                        busBw = ppn * std::min(graph.bwIntra, graph.bwInter * 0.9);
                    }
                    else
                    {
                        double factor = ppn / graph.nChannels; // GPUs per NIC
                        factor -= (factor - 1) / 2;
                        busBw /= factor;
                        if (cc >= 90)
                        {
                            busBw *= .85;
                        }
                    }
                }
                // NVLS and CollNet all-gather/reduce-scatter across servers need a CollNet
                // plugin with those calls (SHARP's): not modelled, so not run.
                if ((algo == NcclAlgorithm::NVLS || algo == NcclAlgorithm::COLLNET_DIRECT) &&
                    gatherScatter && nNodes > 1)
                {
                    busBw = 0;
                }
                // Bus to algorithm bandwidth.
                if (!(algo != NcclAlgorithm::RING && gatherScatter))
                {
                    const bool perStep = algo == NcclAlgorithm::RING ||
                                         algo == NcclAlgorithm::NVLS ||
                                         algo == NcclAlgorithm::NVLS_TREE;
                    busBw *= perStep ? static_cast<double>(nRanks) / nsteps : .5;
                }
                // Enabled algorithms (LL128 is on for every graph of the module's machines:
                // NVLink inside, a NIC on the GPU's PCIe switch).
                const bool enabled =
                    !(nNodes == 1 && algo == NcclAlgorithm::NVLS_TREE) &&
                    !(!s.collNet && (collnet || (algo == NcclAlgorithm::NVLS && nNodes > 1))) &&
                    !(algo == NcclAlgorithm::COLLNET_DIRECT &&
                      (s.gpusPerNode == 1 || s.nvlinks == 0 ||
                       s.gpusPerNode > MAX_DIRECT_ARITY + 1)) &&
                    !(algo == NcclAlgorithm::COLLNET_CHAIN && s.gpusPerNode > MAX_DIRECT_ARITY + 1);
                m_bandwidth[coll][a][p] = enabled && graph.nChannels > 0 ? busBw : 0;

                double lat = BASE_LATENCY_US[a][p];
                double intraLat = HW_LATENCY_US[static_cast<uint32_t>(intraHw)][a][p];
                // With one rank per server the latencies are exposed: the tree's network row.
                double interLat =
                    ppn == 1 ? HW_LATENCY_US[static_cast<uint32_t>(LinkHardware::NET)][0][p]
                             : HW_LATENCY_US[static_cast<uint32_t>(LinkHardware::NET)][a][p];
                const double localRanks1 = ppn - 1; // nRanks / nNodes - 1
                switch (algo)
                {
                case NcclAlgorithm::RING: {
                    const double hwLat = HW_LATENCY_US[static_cast<uint32_t>(hw)][a][p];
                    if (coll == 0 || coll == 1)
                    {
                        lat +=
                            nsteps * (p == SIMPLE ? HW_LATENCY_US[static_cast<uint32_t>(hw)][0][p]
                                                  : hwLat); // sameChannels 0
                    }
                    else
                    {
                        double netOverhead = 0;
                        if (nNodes > 1)
                        {
                            netOverhead = netOverheadUs * (p == SIMPLE ? 3 : 1);
                        }
                        intraLat = std::max(intraLat, netOverhead);
                        const uint32_t nInterSteps = nNodes == 1 ? 0
                                                     : allReduce ? 2 * (nNodes - 1)
                                                                 : nNodes - 1;
                        lat += (nsteps - nInterSteps) * intraLat + nInterSteps * interLat;
                    }
                    break;
                }
                case NcclAlgorithm::TREE:
                    if (allReduce)
                    {
                        lat += 2 * (localRanks1 * intraLat + log2Nodes * interLat);
                    }
                    break;
                case NcclAlgorithm::COLLNET_DIRECT:
                    lat +=
                        2 * (std::min(1.0, localRanks1) * intraLat + localRanks1 * 0.4) + interLat;
                    break;
                case NcclAlgorithm::COLLNET_CHAIN:
                    lat += 2 * localRanks1 * intraLat + interLat;
                    break;
                case NcclAlgorithm::NVLS:
                    lat = intraLat + (nNodes > 1 ? interLat : 0);
                    break;
                case NcclAlgorithm::NVLS_TREE:
                    lat += intraLat + 2 * log2Nodes * interLat;
                    break;
                case NcclAlgorithm::PAT:
                    if (gatherScatter)
                    {
                        lat += log2Nodes * (interLat / NCCL_PAT_STEP_LATENCY_DIVISOR) +
                               nRanks * NCCL_PAT_PER_RANK_LATENCY_US;
                    }
                    break;
                }
                m_latency[coll][a][p] = lat;
            }
        }
    }
}

const NcclGraph&
NcclTuningModel::GetGraph(NcclAlgorithm algorithm) const
{
    return m_graph[static_cast<uint32_t>(algorithm)];
}

uint32_t
NcclTuningModel::GetCommChannels() const
{
    return m_commChannels;
}

double
NcclTuningModel::GetBandwidthGBps(CollectiveType type,
                                  NcclAlgorithm algorithm,
                                  CollectiveProtocol protocol) const
{
    const int f = FunctionIndex(type);
    return f < 0 ? 0 : m_bandwidth[f][static_cast<uint32_t>(algorithm)][Column(protocol)];
}

double
NcclTuningModel::GetLatencyUs(CollectiveType type,
                              NcclAlgorithm algorithm,
                              CollectiveProtocol protocol) const
{
    const int f = FunctionIndex(type);
    return f < 0 ? 0 : m_latency[f][static_cast<uint32_t>(algorithm)][Column(protocol)];
}

double
NcclTuningModel::GetTimeUs(CollectiveType type,
                           NcclAlgorithm algorithm,
                           CollectiveProtocol protocol,
                           uint64_t bytes) const
{
    double bw = GetBandwidthGBps(type, algorithm, protocol);
    double lat = GetLatencyUs(type, algorithm, protocol);
    if (bw == 0)
    {
        return -1;
    }
    const uint32_t p = Column(protocol);
    const int logSize = Log2i(bytes >> 6);
    const bool allReduce = type == CollectiveType::ALL_REDUCE;
    if (algorithm == NcclAlgorithm::TREE && allReduce && logSize >= 0 && logSize < 23)
    {
        bw *= TREE_CORRECTION[p][logSize];
    }
    if (algorithm == NcclAlgorithm::NVLS_TREE && allReduce && logSize >= 0 && logSize < 24 &&
        m_system.computeCapability >= 100)
    {
        bw *= TREE_CORRECTION[p][logSize];
    }
    const uint32_t nRanks = m_system.nodes * m_system.gpusPerNode;
    if (algorithm == NcclAlgorithm::RING && p == SIMPLE && m_system.nodes > 1 && allReduce &&
        bytes / (static_cast<uint64_t>(m_commChannels) * nRanks) >= 64)
    {
        lat *= m_system.computeCapability < 80 ? 1.9 : 1.4; // the ring's plateau
    }
    return lat + bytes / (1000 * bw);
}

NcclTuningModel::Choice
NcclTuningModel::Choose(CollectiveType type,
                        uint64_t bytes,
                        const NcclAlgorithm* only,
                        CollectiveProtocol protocol) const
{
    Choice best;
    if (!Covers(type))
    {
        return best;
    }
    const bool anyProtocol =
        protocol == CollectiveProtocol::AUTO || protocol == CollectiveProtocol::NONE;
    for (uint32_t a = 0; a < NCCL_ALGORITHM_COUNT; ++a)
    {
        if (only && static_cast<uint32_t>(*only) != a)
        {
            continue;
        }
        for (CollectiveProtocol p : GetCollectiveProtocols())
        {
            if (!anyProtocol && p != protocol)
            {
                continue;
            }
            const double t = GetTimeUs(type, static_cast<NcclAlgorithm>(a), p, bytes);
            if (t >= 0 && (best.timeUs < 0 || t < best.timeUs))
            {
                best = {static_cast<NcclAlgorithm>(a), p, t};
            }
        }
    }
    NS_LOG_LOGIC(CollectiveTypeToString(type)
                 << " " << bytes << " B: NCCL picks " << NcclAlgorithmToString(best.algorithm)
                 << "/" << CollectiveProtocolToString(best.protocol) << ", " << best.timeUs
                 << " us");
    return best;
}

} // namespace ns3
