// SPDX-License-Identifier: GPL-2.0-only
#ifndef FABRIC_MONITOR_H
#define FABRIC_MONITOR_H

#include "roce-topology-helper.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Watches a RoCE fabric for a report: per link (one direction of a cable) the bytes sent,
 * mean and peak utilisation, PFC pauses sent, ECN marks and the largest queue; per switch ECN
 * marks, drops and pauses; every PFC frame a switch sends (time, switch, port, priority, quanta);
 * and, every SampleInterval, the utilisation of each link class and the largest queue,
 * for plots. Byte counts come from the devices' counters, read at each sample, so the
 * per-packet cost is one trace call per enqueue (queue maxima) and nothing else.
 *
 * A sample reads only the active links: a link that sent nothing since the last sample,
 * has an empty queue and no fast-forward stream still counting on it contributes zero to
 * every figure, so the sample leaves it and asks its device to say when it next sends,
 * queues a frame or gets a stream (RoceNetDevice::NotifyOnActivity); then it is read
 * again. The samples are those of reading every link (the same sums, in link order).
 *
 * Idle costs nothing (IdleSleep): a sample that finds no link active is the last until a
 * device is active again. The first activity wakes the monitor, which writes the last
 * all-zero sample it skipped (a run of idle samples is kept as its first and its last,
 * which draw the same lines) and samples again from the next sample time. Sample times,
 * per-link totals, peaks and the monitored span are those of sampling throughout.
 */
class FabricMonitor : public Object
{
  public:
    static TypeId GetTypeId();

    /// One direction of a cable.
    struct Link
    {
        std::string from; //!< e.g. "nic3", "sw1"
        std::string to;
        std::string cls; //!< "nic-up", "leaf-down", "leaf-up", "spine-down", "switch"
        Ptr<RoceNetDevice> device;
        Ptr<RoceSwitch> sw; //!< owner when from is a switch
        uint32_t port{0};
        uint64_t baseBytes{0};  //!< device counter when Start was called
        uint64_t bytes{0};      //!< sent since Start
        uint64_t baseFrames{0}; //!< device frame counter when Start was called
        uint64_t frames{0};     //!< frames sent since Start (packet-hops on this link)
        uint64_t baseSkippedFrames{0}; //!< device skipped-frame counter when Start was called
        uint64_t skippedFrames{0};     //!< of frames, those a fast-forward skipped
        double peakUtilisation{0};
        uint32_t maxQueueBytes{0};
        uint64_t pfcSent{0};
        uint64_t ecnMarks{0}; //!< packets marked CE leaving this link (switch ports)
    };

    /// One PFC frame sent by a switch.
    struct PfcEvent
    {
        Time time;
        std::string sw;
        uint32_t port;
        uint8_t priority;
        uint16_t quanta; //!< 0 = resume (XON)
    };

    /// One sample: mean utilisation per link class and the largest queue anywhere.
    struct Sample
    {
        Time time;
        std::vector<double> utilisation; //!< per class, in GetClasses() order
        uint32_t maxQueueBytes{0};
    };

    /**
     * Watch topo. Hosts are named "nic<i>", switches "sw<j>"; switches with a host
     * neighbour count as leaves for the link classes.
     */
    void Attach(const RoceTopology& topo);

    /// \param i a host's index in its topology \return its name in the reports, nic<i>
    static std::string HostName(uint32_t i);
    /// \param j a switch's index in its topology \return its name in the reports, sw<j>
    static std::string SwitchName(uint32_t j);
    /**
     * \param topo a topology
     * \param name a node's name in the reports (HostName, SwitchName)
     * \return the node of that name, or null
     */
    static Ptr<Node> FindNode(const RoceTopology& topo, const std::string& name);
    /// Start sampling now; stops by itself once keepGoing returns false.
    void Start(std::function<bool()> keepGoing);
    /**
     * The workload has ended (call when it does): the next sample is the last, as when
     * keepGoing turns false. Needed only for exact samples when the monitor may be asleep
     * then (IdleSleep): it says when the samples the idle time owes end.
     */
    void Stop();
    /// Take the final sample (call after the run) and fix the totals.
    void Finish();

    /// \return the links
    const std::vector<Link>& GetLinks() const;
    /// \return the PFC frames sent by switches, in time order
    const std::vector<PfcEvent>& GetPfcEvents() const;
    /// \return the samples; with IdleSleep a run of all-zero samples is kept as its first
    ///         and last
    const std::vector<Sample>& GetSamples() const;
    /// \return how many times the monitor went to sleep on an idle fabric (IdleSleep)
    uint64_t GetSleeps() const;
    /// \return links read by all samples so far (ActiveLinksOnly reads fewer)
    uint64_t GetLinkReads() const;
    /// \return the link classes present, in sample order
    const std::vector<std::string>& GetClasses() const;
    /// \return the switches' names and objects
    const std::vector<std::pair<std::string, Ptr<RoceSwitch>>>& GetSwitches() const;
    /// \return the monitored time span
    Time GetDuration() const;

    /// Write links as CSV (from,to,class,bytes,mean_util,peak_util,max_queue_bytes,
    /// pfc_pauses_sent,ecn_marks).
    void WriteLinksCsv(std::ostream& os) const;
    /// Write PFC events as CSV (time_us,switch,port,priority,quanta,kind).
    void WritePfcCsv(std::ostream& os) const;
    /// Write samples as a whitespace table (time_us, one column per class, max_queue_KiB).
    void WriteSamples(std::ostream& os) const;

  protected:
    void DoDispose() override;

  private:
    void TakeSample();
    /// Schedule the next sample (unless stopped): at the next multiple of the interval
    /// after the start that is not before now.
    void ScheduleNextSample();
    /// Nothing moves: wait for a device's activity instead of sampling.
    void Sleep();
    /// A device is active: write the last skipped sample and sample again.
    void Wake();
    /// Write the all-zero sample of the last sample time before now, if one was skipped.
    void CatchUp();
    /// Link link's device is active again: read it from the next sample on.
    void OnActivity(uint32_t link);
    /// Stop reading link until its device is active again.
    void Deactivate(uint32_t link);
    /// Cancel every device's activity notification: every link counts as active.
    void Disarm();
    void OnQueue(uint32_t sw, uint32_t port, uint8_t priority, uint32_t bytes);
    void OnPfc(const std::string& sw,
               uint32_t swIndex,
               uint32_t port,
               uint8_t priority,
               uint16_t quanta);
    /// \return the link of switch sw's port, or -1
    int32_t LinkOf(uint32_t sw, uint32_t port) const;
    /// Hook OnQueue and OnPfc to the traces of switch j (sw, named name).
    void ConnectSwitch(uint32_t j, Ptr<RoceSwitch> sw, const std::string& name);

    /// Trace hooks on one switch, kept to disconnect them.
    struct Connection
    {
        Ptr<RoceSwitch> sw;
        Callback<void, uint32_t, uint8_t, uint32_t> queue;
        Callback<void, uint32_t, uint8_t, uint16_t> pfc;
    };

    Time m_interval;
    bool m_idleSleep{true};  //!< IdleSleep attribute
    bool m_activeOnly{true}; //!< ActiveLinksOnly attribute
    uint64_t m_linkReads{0}; //!< GetLinkReads
    Time m_start;
    Time m_last;
    std::function<bool()> m_keepGoing;
    bool m_stopped{false}; //!< Stop was called: the next sample is the last
    bool m_asleep{false};  //!< idle: waiting for a device's activity
    uint64_t m_sleeps{0};  //!< times gone to sleep
    std::vector<Link> m_links;
    std::vector<uint32_t> m_active;         //!< links read by the next sample
    std::vector<uint8_t> m_isActive;        //!< per link: in m_active
    bool m_activeSorted{true};              //!< m_active in link order
    std::vector<Callback<void>> m_activity; //!< per link: OnActivity(link), built once
    std::vector<uint32_t> m_classCount;     //!< links per class
    std::vector<uint64_t> m_lastBytes;
    std::vector<std::string> m_classes;
    std::vector<uint32_t> m_classOf; //!< per link, index in m_classes
    std::vector<std::pair<std::string, Ptr<RoceSwitch>>> m_switches;
    std::vector<std::vector<int32_t>> m_portLink; //!< per switch: port -> link or -1
    std::vector<Connection> m_connections;
    std::vector<PfcEvent> m_pfc;
    std::vector<Sample> m_samples;
    bool m_finished{false};
};

} // namespace ns3

#endif // FABRIC_MONITOR_H
