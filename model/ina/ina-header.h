// SPDX-License-Identifier: GPL-2.0-only
#ifndef INA_HEADER_H
#define INA_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Constants of the in-network aggregation (INA) wire format.
 */
namespace ina
{
/// UDP destination port of INA packets: one of the dynamic range (RFC 6335), so no
/// registered service is shadowed. Switches with an aggregation engine take these
/// packets off the forwarding path.
constexpr uint16_t UDP_PORT = 49568;
/// Version carried in the first nibble.
constexpr uint8_t VERSION = 1;
/// The IPv4 group addresses of aggregation jobs, 239.255.0.0/16 (administratively scoped
/// multicast, RFC 2365): job j's DATA packets go to 239.255.(j >> 8).(j & 255).
constexpr uint32_t GROUP_PREFIX = 0xEFFF0000;
/// Header bytes after the UDP header.
constexpr uint32_t HEADER_BYTES = 28;
/// Workers of a streaming job: its packets name their contributors in the 64-bit bitmap.
constexpr uint32_t MAX_STREAMING_WORKERS = 64;
/// Workers of a job whose reductions deliver to one worker (reduce, reduce-scatter): the
/// destination field has 8 bits.
constexpr uint32_t MAX_DIRECTED_WORKERS = 256;
} // namespace ina

/**
 * \ingroup ai-fabric
 * The aggregation protocols a job can run on its switches.
 */
enum class InaProtocol : uint8_t
{
    /// Synchronous slot pools (SwitchML): a job's fragment q goes into slot q mod k of its
    /// pool, two copies per slot, the result is the acknowledgement.
    SWITCHML = 0,
    /// Streaming aggregation (ATP/SHARP): hash-addressed aggregators shared by the jobs,
    /// full-MTU fragments, a fallback host for what collides, an ECN-driven window.
    STREAMING = 1,
};

/**
 * \param protocol an aggregation protocol
 * \return its name: "switchml" or "streaming" (the names of the controller's Protocol
 *         attribute and of collective-perf's --inaProtocol)
 */
const char* InaProtocolName(InaProtocol protocol);

/**
 * \ingroup ai-fabric
 * \brief The header of an in-network aggregation packet (UDP port ina::UDP_PORT).
 *
 * \verbatim
    0               1               2               3
    0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7
   +-------+-------+---------------+-------------------------------+
   |version| type  |     flags     |            job id             |
   +-------+-------+---------------+-------------------------------+
   |                      sequence (fragment)                      |
   +-+-------------------------------------------------------------+
   |c|                     slot index (31 bits)                    |
   +-+-----------------------------+-------------------------------+
   |          sender               |       contributor count       |
   +-------------------------------+-------------------------------+
   |                 contributor bitmap (64 bits)                  |
   |                                                               |
   +-------------------------------+---------------+---------------+
   |        fragment length        | element type  |  destination  |
   +-------------------------------+---------------+---------------+
   |                values (fragment length bytes) ...
   \endverbatim
 *
 * All fields are big-endian. A DATA packet goes up the job's aggregation tree (worker to
 * switch, switch to parent switch) and carries the sum of count workers' values; a
 * RESULT packet comes down (switch to child) with the sum over the whole job. The
 * bitmap names the sender's contributors at the level it was formed (the children of
 * the switch that summed them); c selects one of the two copies of a slot (SwitchML's
 * shadow copy). The values follow the header; the simulation sends their length only.
 *
 * Fragment length is the fragment's size whether or not its values follow: a packet
 * flagged NO_VALUES carries none (a worker that is not a multicast's source contributes
 * zeros, which need no bytes; a result toward a worker that does not need the sum is
 * only an acknowledgement). A packet flagged DIRECTED belongs to a reduction whose sum
 * only the worker of rank destination needs (reduce, reduce-scatter): switches send the
 * result's values toward that worker only.
 */
class InaHeader : public Header
{
  public:
    /// What a packet is.
    enum Type : uint8_t
    {
        DATA = 1,   //!< contributions going up the tree
        RESULT = 2, //!< the aggregate coming down (also the acknowledgement)
    };

    /// Flag bits.
    enum Flag : uint8_t
    {
        RETRANSMISSION = 0x01, //!< sent again after a timeout
        ECN_ECHO = 0x02,       //!< a contribution arrived marked CE
        FALLBACK = 0x04,       //!< not aggregated in the network (no aggregator)
        NO_VALUES = 0x08,      //!< no values follow (zeros, or an acknowledgement)
        DIRECTED = 0x10,       //!< only worker destination needs the sum's values
    };

    /// Element types of the values.
    enum ElementType : uint8_t
    {
        INT32 = 1,   //!< 32-bit integers (fixed point, as SwitchML sends)
        FLOAT32 = 2, //!< IEEE 754 binary32
        FLOAT16 = 3, //!< IEEE 754 binary16
    };

    InaHeader();

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    /**
     * \param element an element type
     * \return its size in bytes (0 for an unknown type)
     */
    static uint32_t GetElementBytes(ElementType element);

    /// \return bytes of values following the header: length, or 0 if NO_VALUES is set
    uint32_t GetValueBytes() const;
    /// \param values whether values follow the header (clears or sets NO_VALUES)
    void SetValues(bool values);

    Type type{DATA};              //!< DATA or RESULT
    uint8_t flags{0};             //!< Flag bits
    uint16_t job{0};              //!< aggregation job
    uint32_t sequence{0};         //!< fragment number within the job's reduction
    uint32_t slot{0};             //!< slot index within the job's pool
    bool copy{false};             //!< which of the slot's two copies
    uint16_t sender{0};           //!< sender's index among its parent's children
    uint16_t count{0};            //!< workers whose values are summed in the packet
    uint64_t bitmap{0};           //!< contributors at the level the packet was formed
    uint16_t length{0};           //!< bytes of values following the header
    ElementType element{FLOAT32}; //!< element type of the values
    uint8_t destination{0};       //!< with DIRECTED: the rank that needs the sum
};

/**
 * Who holds the values of the sum a packet belongs to, once its result is out: every
 * worker, unless the packet is DIRECTED; then its destination, and for streaming jobs
 * also the fragment's fallback host (worker sequence mod workers), which keeps every
 * result it hosts, as ATP's parameter server does, to answer retransmissions.
 * \param h a packet of the job
 * \param rank a worker's rank
 * \param workers the job's workers (streaming), or 0 (switchml: no fallback host)
 * \return whether that worker needs (and gets) the sum's values
 */
bool InaNeedsValues(const InaHeader& h, uint32_t rank, uint32_t workers);

} // namespace ns3

#endif /* INA_HEADER_H */
