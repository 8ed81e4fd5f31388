// SPDX-License-Identifier: GPL-2.0-only
#ifndef RDMA_RECEIVE_BUFFER_H
#define RDMA_RECEIVE_BUFFER_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/roce-frame-info.h"

#include <cstdint>
#include <deque>

namespace ns3
{

class RoceNetDevice;

/**
 * \ingroup ai-fabric
 * The host receive path of an RdmaNic: frames wait here until the host takes them.
 *
 * The host takes the frames in arrival order, each after its time at the rate (PCIe,
 * host memory), and hands each to the release callback (the NIC's dispatch to its queue
 * pairs). A frame that finds the buffer full is dropped. When the buffer would leave
 * less than the headroom a pause needs to take effect (SharedBufferMmu::ComputeHeadroom:
 * two cable delays and two frames at line rate), it pauses the frame's priority on its
 * port's link (PFC XOFF with the pause quanta), re-sends the pause at half its time while
 * it lasts, and resumes (XON) every paused priority once the buffer is two frames below
 * that level.
 *
 * The NIC configures it from its attributes (RdmaNic::ReceiveRate, ReceiveBufferSize,
 * ReceivePauseQuanta) and gives it frames only with a rate above 0: with rate 0 the NIC
 * dispatches every frame as it arrives and the buffer does nothing.
 */
class RdmaReceiveBuffer : public Object
{
  public:
    /// Takes a frame the host has taken from the buffer: frame, decoded fields.
    typedef Callback<void, Ptr<Packet>, const RoceFrameInfo&> ReleaseCallback;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RdmaReceiveBuffer();
    ~RdmaReceiveBuffer() override;

    /// \param device the port whose link the buffer pauses (its rate, cable and MTU set
    ///        the thresholds)
    void SetDevice(Ptr<RoceNetDevice> device);
    /// \param callback takes each frame the host has taken, in arrival order
    void SetReleaseCallback(ReleaseCallback callback);

    /// \param rate the rate at which the host takes frames (above 0 for the buffer to work)
    void SetRate(DataRate rate);
    DataRate GetRate() const; //!< \return the rate at which the host takes frames
    /// \param bytes the buffer's size; the thresholds follow it until the first frame
    void SetSize(uint32_t bytes);
    uint32_t GetSize() const; //!< \return the buffer's size in bytes
    /// \param quanta pause time of the XOFF frames, in quanta of 512 bit times
    void SetPauseQuanta(uint16_t quanta);
    uint16_t GetPauseQuanta() const; //!< \return pause time of the XOFF frames, in quanta

    /**
     * A frame arrived: keep it (or drop it if it does not fit), pause the link past the
     * XOFF level, and start the host's drain if it is idle.
     * \param packet the frame
     * \param info its decoded fields
     */
    void Enqueue(Ptr<Packet> packet, const RoceFrameInfo& info);

    uint64_t GetDrops() const; //!< \return frames dropped because the buffer was full
    uint32_t GetPeak() const;  //!< \return the most bytes the buffer held
    uint32_t GetBytes() const; //!< \return the bytes the buffer holds now

  protected:
    void DoDispose() override;

  private:
    /// The host has taken the front frame.
    void DrainOne();
    /// Set the levels at which the buffer pauses (m_xoff) and resumes (m_xon) its port's
    /// link, from the port's rate, cable and MTU (on the first buffered frame).
    void SetThresholds();
    /// The host takes the front frame after its time at the rate.
    void ScheduleDrain();
    /// Send PFC with quanta (0: XON) for every priority the buffer has paused.
    /// \param quanta pause time, in quanta of 512 bit times
    void SendPfc(uint16_t quanta);
    /// Re-send the pause at half its time while it lasts.
    void ScheduleRefresh();
    /// The refresh timer fired.
    void RefreshPause();

    /// A frame in the buffer.
    struct Frame
    {
        Ptr<Packet> packet; //!< the frame
        RoceFrameInfo info; //!< its decoded fields
    };

    Ptr<RoceNetDevice> m_device; //!< the port whose link is paused
    ReleaseCallback m_release;   //!< takes the frames the host has taken
    DataRate m_rate;             //!< see SetRate
    uint32_t m_size{0};          //!< see SetSize
    uint16_t m_pauseQuanta{0};   //!< see SetPauseQuanta

    std::deque<Frame> m_queue; //!< frames the host has not taken yet
    uint32_t m_bytes{0};       //!< their bytes
    uint32_t m_peak{0};        //!< see GetPeak
    uint64_t m_drops{0};       //!< see GetDrops
    uint8_t m_pausedMask{0};   //!< priorities the buffer has paused
    uint32_t m_xoff{0};        //!< pause above this many bytes (0: not set yet)
    uint32_t m_xon{0};         //!< resume at or below this many bytes
    EventId m_drainEvent;      //!< the host takes the front frame
    EventId m_refreshEvent;    //!< the pause is re-sent
};

} // namespace ns3

#endif
