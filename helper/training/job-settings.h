// SPDX-License-Identifier: GPL-2.0-only
#ifndef JOB_SETTINGS_H
#define JOB_SETTINGS_H

#include "ns3/nstime.h"
#include "ns3/transformer-trace-generator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * One job of a shared cluster (the scenario's "jobs" list; ai-fabric-sim --job): its own
 * workload, how many GPUs it gets and where, when it starts, how many iterations it runs
 * and the traffic class its RDMA data uses.
 */
struct JobSpec
{
    /// Where the job's GPUs go (PlaceJobs).
    enum class Placement : uint8_t
    {
        PACKED,  //!< the lowest free GPUs, server after server
        SPREAD,  //!< as evenly as possible over the servers with free GPUs, pods in turn
        RANDOM,  //!< servers in a random order drawn with the seed, packed within each
        SERVERS, //!< the servers listed (servers), in that order
    };

    std::string name;  //!< unique among the jobs ("job1", "job2", ... when not given)
    std::string place; //!< where it was given ("s.json: /jobs/0", "--job=..."), for messages

    // The workload, as a scenario's "workload" section
    std::string traceFormat{"json"}; //!< json, aicb, chakra, chakra-json or generator
    std::string traceFile;           //!< json/aicb: the file; chakra: the prefix
    TransformerConfig generator;     //!< "generator": the model
    uint32_t traceRanks{0};          //!< chakra/aicb: ranks (0: gpus)
    double computeScale{1.0};        //!< factor on every compute duration

    uint32_t gpus{0}; //!< GPUs it gets (0: as many as its workload has ranks)
    Placement placement{Placement::PACKED};
    std::vector<uint32_t> servers; //!< SERVERS: the servers, in the order its ranks fill them
    /// The cluster GPU of each rank, when the program fixes it (a job run alone on the
    /// GPUs it had on the shared cluster); empty: placed by placement
    std::vector<uint32_t> fixedGpus;
    Time start; //!< when it starts (or arrives), from the start of the run
    /// it arrives at start (JobArrivals) and is placed first fit then, or queued
    bool arrives{false};
    uint32_t iterations{0};  //!< iterations it runs (0: the scenario's)
    uint8_t trafficClass{3}; //!< priority (PCP class) of its RDMA data; made lossless

    /// The highest priority a job's data may use (802.1Q has 8).
    static constexpr uint32_t MAX_TRAFFIC_CLASS = 7;
    /// The forms of a placement, for messages.
    static constexpr const char* PLACEMENT_FORMS =
        "packed, spread, random, or servers such as 0-1,4";

    /**
     * Read a placement: packed, spread, random, or a server list "a-b,c,..." (ranges and
     * single servers, comma-separated, none twice).
     * \param text the text \param job its placement and servers are set on success
     * \param why set to what was expected on failure
     * \return true if text is a placement
     */
    static bool ParsePlacement(const std::string& text, JobSpec& job, std::string* why);
    /// \return the placement as ParsePlacement reads it ("packed", "0-1,4")
    std::string PlacementToString() const;
};

/**
 * \param values indices (servers, GPUs), in the order to write them
 * \return them comma-separated, each run of consecutive rising values as "a-b"
 *         ("0-3,8,10-11"); what JobSpec::ParsePlacement reads back
 */
std::string IndexRangesToString(const std::vector<uint32_t>& values);

/**
 * \ingroup ai-fabric
 * Jobs that arrive while the cluster runs (the scenario's "arrivals"): a Poisson stream
 * over a window, each job of a kind drawn from a mix, placed first fit (the lowest free
 * GPUs) when it arrives, queued in arrival order while it does not fit.
 */
struct JobArrivals
{
    /// One kind of job of the mix.
    struct Kind
    {
        JobSpec job;           //!< its workload, GPUs, iterations, class (name: the kind's)
        double probability{0}; //!< the share of arrivals of this kind
    };

    std::vector<Kind> mix; //!< the kinds, probabilities adding up to 1 (empty: none)
    Time meanInterarrival; //!< mean time between two arrivals (exponential gaps)
    Time window;           //!< arrivals in [0, window)
    std::string place;     //!< where it was given, for messages

    /// The most jobs a window may expect (window / meanInterarrival).
    static constexpr uint32_t MAX_EXPECTED_JOBS = 10000;
};

/**
 * \ingroup ai-fabric
 * Which job holds each GPU of a cluster (GPU g = server x gpusPerServer + local): what
 * PlaceJobs fills at the start and a TrainingSimulation keeps as jobs arrive and end.
 */
class GpuPool
{
  public:
    /// \param servers servers \param gpusPerServer GPUs per server (all free)
    GpuPool(uint32_t servers = 0, uint32_t gpusPerServer = 0);
    /// \param server a server \return its free GPUs
    uint32_t Free(uint32_t server) const;
    /// \return the free GPUs of the cluster
    uint32_t TotalFree() const;
    /// \return the GPUs some job holds
    uint32_t Held() const;
    /**
     * Take up to n free GPUs of server (lowest first).
     * \param server the server \param n GPUs wanted \param job the taker
     * \param out the GPUs taken are appended \return how many
     */
    uint32_t Take(uint32_t server, uint32_t n, int job, std::vector<uint32_t>& out);
    /**
     * Take the n lowest free GPUs of the cluster, or none if fewer are free.
     * \param n GPUs wanted \param job the taker \param out the GPUs taken are appended
     * \return whether they were taken
     */
    bool TakeFirstFit(uint32_t n, int job, std::vector<uint32_t>& out);
    /// \param gpu a GPU \return the job holding it, -1 if free
    int Owner(uint32_t gpu) const;
    /// \param gpu a GPU \param job the job that holds it now (-1: free it)
    void Own(uint32_t gpu, int job);
    /// \param job a job: every GPU it holds becomes free
    void Release(int job);

  private:
    uint32_t m_gpusPerServer; //!< GPUs per server
    std::vector<int> m_owner; //!< per GPU: the job holding it, -1 free
};

/**
 * Place jobs on a cluster: each job gets the cluster GPUs of its ranks (rank i of a job on
 * result[job][i]). Jobs with fixed GPUs and explicit server lists are placed first, in
 * list order, then the others in list order on the GPUs still free.
 * \param jobs the jobs (gpus set: what each needs)
 * \param servers servers of the cluster \param gpusPerServer GPUs per server
 * \param pods pods the servers form (consecutive servers, servers / pods each)
 * \param seed the run's seed (random placement)
 * \param result set to each job's GPUs
 * \param error set, naming the job's place, when a job overlaps an explicit placement
 *        before it, names a server the cluster lacks, or finds too few free GPUs
 * \return true on success
 */
bool PlaceJobs(const std::vector<JobSpec>& jobs,
               uint32_t servers,
               uint32_t gpusPerServer,
               uint32_t pods,
               uint32_t seed,
               std::vector<std::vector<uint32_t>>& result,
               std::string* error);

} // namespace ns3

#endif // JOB_SETTINGS_H
