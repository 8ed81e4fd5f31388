// SPDX-License-Identifier: GPL-2.0-only
#include "straggler-settings.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/flow-size-cdf.h"
#include "ns3/gpu-cluster-helper.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/pointer.h"
#include "ns3/quantity-text.h"
#include "ns3/random-variable-stream.h"
#include "ns3/roce-channel.h"
#include "ns3/workload-runner.h"

#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("StragglerSettings");

namespace
{
/// The jitter distributions, as their texts name them.
constexpr const char* NORMAL = "normal";
constexpr const char* LOGNORMAL = "lognormal";
constexpr const char* CDF = "cdf";
/// What a jitter CDF file's values are, for its messages.
constexpr const char* FACTORS = "factors";

/// \return text as a number, or NaN if it is not one
double
NumberOf(const std::string& text)
{
    std::istringstream in(text);
    double v = NAN;
    if (text.empty() || !(in >> v) || !in.eof())
    {
        return NAN;
    }
    return v;
}

/// \return text as a rank, or false if it is not a non-negative integer below 2^24
bool
RankOf(const std::string& text, uint32_t& rank)
{
    if (text.empty() || text.size() > 8 ||
        text.find_first_not_of("0123456789") != std::string::npos)
    {
        return false;
    }
    rank = static_cast<uint32_t>(std::stoul(text));
    return rank < (1u << 24);
}
} // namespace

bool
StragglerSettings::ParseSlow(const std::string& text, Slow& slow, std::string* why)
{
    const size_t colon = text.rfind(':');
    Slow s = slow;
    bool ok = colon != std::string::npos;
    if (ok)
    {
        const std::string ranks = text.substr(0, colon);
        const size_t dash = ranks.find('-');
        ok = dash == std::string::npos
                 ? RankOf(ranks, s.first) && RankOf(ranks, s.last)
                 : RankOf(ranks.substr(0, dash), s.first) &&
                       RankOf(ranks.substr(dash + 1), s.last) && s.first <= s.last;
        s.factor = NumberOf(text.substr(colon + 1));
        ok = ok && s.factor > 0 && s.factor <= MAX_FACTOR;
    }
    if (!ok)
    {
        *why = "expected RANKS:FACTOR (RANKS a rank or a range such as 8-15, FACTOR in (0, " +
               std::to_string(static_cast<int>(MAX_FACTOR)) + "], e.g. 3:1.5), got \"" + text +
               "\"";
        return false;
    }
    slow = s;
    return true;
}

bool
StragglerSettings::ParseJitter(const std::string& text, std::string* why)
{
    const size_t colon = text.find(':');
    const std::string kind = text.substr(0, colon);
    if (kind == CDF && colon != std::string::npos)
    {
        FlowSizeCdf cdf;
        if (!FlowSizeCdf::Load(text.substr(colon + 1), cdf, why, FACTORS))
        {
            return false;
        }
        if (cdf.Points().back().first > MAX_FACTOR)
        {
            *why = text.substr(colon + 1) + ": expected factors up to " +
                   std::to_string(static_cast<int>(MAX_FACTOR)) + " (a straggler's bound)";
            return false;
        }
        return true;
    }
    const double sigma = colon == std::string::npos ? NAN : NumberOf(text.substr(colon + 1));
    const double most = kind == NORMAL ? 1.0 : MAX_SIGMA;
    if ((kind != NORMAL && kind != LOGNORMAL) || !(sigma > 0 && sigma <= most))
    {
        *why = std::string("expected ") + NORMAL + ":SIGMA (SIGMA in (0, 1]), " + LOGNORMAL +
               ":SIGMA (SIGMA in (0, 2]): a factor of mean 1 on each compute op, or " + CDF +
               ":FILE (lines \"factor percent\"), got \"" + text + "\"";
        return false;
    }
    return true;
}

bool
StragglerSettings::ParseFailure(const std::string& text, Failure& failure, std::string* why)
{
    const size_t colon = text.find(':');
    Failure f = failure;
    const bool ok = colon != std::string::npos && RankOf(text.substr(0, colon), f.rank) &&
                    TextToTime(text.substr(colon + 1), f.at) && !f.at.IsNegative();
    if (!ok)
    {
        *why = "expected RANK:TIME (a time with its unit, e.g. 2:10ms), got \"" + text + "\"";
        return false;
    }
    failure = f;
    return true;
}

bool
StragglerSettings::ParseSlowNic(const std::string& text, SlowNic& nic, std::string* why)
{
    const size_t colon = text.find(':');
    SlowNic n = nic;
    const bool ok = colon != std::string::npos && RankOf(text.substr(0, colon), n.rank) &&
                    TextToDataRate(text.substr(colon + 1), n.rate) && n.rate.GetBitRate() > 0;
    if (!ok)
    {
        *why = "expected RANK:RATE (a rate with its unit, e.g. 5:100Gbps), got \"" + text + "\"";
        return false;
    }
    nic = n;
    return true;
}

bool
StragglerSettings::ParseRestart(const std::string& text, Time& delay, std::string* why)
{
    if (!TextToTime(text, delay) || delay.IsNegative() || delay > Seconds(86400))
    {
        *why = "expected a restart delay such as 5ms or 30s (0 to a day), got \"" + text + "\"";
        return false;
    }
    return true;
}

bool
StragglerSettings::IsEmpty() const
{
    return slow.empty() && jitter.empty() && failures.empty() && nics.empty() &&
           restartDelay.IsNegative();
}

bool
StragglerSettings::ApplyNics(const GpuCluster& cluster, std::string* error) const
{
    for (const SlowNic& n : nics)
    {
        Ptr<RoceNetDevice> nic = cluster.network.nics.at(n.rank)->GetDevice();
        Ptr<RoceNetDevice> peer = nic->GetRoceChannel()->GetPeer(nic);
        const DataRate was = nic->GetDataRate();
        if (n.rate > was)
        {
            *error = n.place + ": " + std::to_string(n.rate.GetBitRate()) +
                     " bps is above the link's " + std::to_string(was.GetBitRate()) +
                     " bps (a slow NIC is slower)";
            return false;
        }
        NS_LOG_INFO("rank " << n.rank << ": NIC at " << n.rate << " instead of " << was);
        nic->SetAttribute("DataRate", DataRateValue(n.rate));
        peer->SetAttribute("DataRate", DataRateValue(n.rate));
        // The switch port's buffer figures (ECN thresholds, PFC headroom) follow its rate.
        for (const auto& sw : cluster.network.switchObjects)
        {
            for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
            {
                if (sw->GetPort(p) == peer)
                {
                    sw->ReconfigureBuffers();
                }
            }
        }
    }
    return true;
}

bool
StragglerSettings::Check(uint32_t ranks, std::string* error) const
{
    std::vector<bool> slowed(ranks, false);
    for (const Slow& s : slow)
    {
        if (s.last >= ranks)
        {
            *error = s.place + ": rank " + std::to_string(s.last) +
                     " is not one of the workload's " + std::to_string(ranks) + " ranks";
            return false;
        }
        for (uint32_t r = s.first; r <= s.last; ++r)
        {
            if (slowed[r])
            {
                *error = s.place + ": rank " + std::to_string(r) + " is slowed twice";
                return false;
            }
            slowed[r] = true;
        }
    }
    std::vector<bool> slowNic(ranks, false);
    for (const SlowNic& n : nics)
    {
        if (n.rank >= ranks)
        {
            *error = n.place + ": rank " + std::to_string(n.rank) +
                     " is not one of the workload's " + std::to_string(ranks) + " ranks";
            return false;
        }
        if (slowNic[n.rank])
        {
            *error = n.place + ": the NIC of rank " + std::to_string(n.rank) + " is slowed twice";
            return false;
        }
        slowNic[n.rank] = true;
    }
    std::vector<bool> failing(ranks, false);
    for (const Failure& f : failures)
    {
        if (f.rank >= ranks)
        {
            *error = f.place + ": rank " + std::to_string(f.rank) +
                     " is not one of the workload's " + std::to_string(ranks) + " ranks";
            return false;
        }
        if (failing[f.rank])
        {
            *error = f.place + ": the GPU of rank " + std::to_string(f.rank) + " fails twice";
            return false;
        }
        failing[f.rank] = true;
    }
    if (!restartDelay.IsNegative() && failures.empty())
    {
        *error = restartPlace + ": a restart policy without failures restarts nothing: give "
                                "failures (stragglers.failures or --failGpu)";
        return false;
    }
    return true;
}

double
StragglerSettings::FactorOf(uint32_t rank) const
{
    for (const Slow& s : slow)
    {
        if (rank >= s.first && rank <= s.last)
        {
            return s.factor;
        }
    }
    return 1.0;
}

void
StragglerSettings::Apply(Ptr<WorkloadRunner> runner, int64_t stream) const
{
    for (const Slow& s : slow)
    {
        for (uint32_t r = s.first; r <= s.last; ++r)
        {
            NS_LOG_INFO("rank " << r << ": compute x " << s.factor);
            runner->SetComputeScale(r, s.factor);
        }
    }
    if (!jitter.empty())
    {
        const size_t colon = jitter.find(':');
        const std::string kind = jitter.substr(0, colon);
        Ptr<RandomVariableStream> rv;
        if (kind == CDF)
        {
            // The measured CDF, interpolated between its points (read by ParseJitter).
            FlowSizeCdf cdf;
            std::string why;
            NS_ABORT_MSG_IF(!FlowSizeCdf::Load(jitter.substr(colon + 1), cdf, &why, FACTORS),
                            "StragglerSettings: " << why);
            auto empirical =
                CreateObjectWithAttributes<EmpiricalRandomVariable>("Interpolate",
                                                                    BooleanValue(true));
            for (const auto& [factor, probability] : cdf.Points())
            {
                empirical->CDF(factor, probability);
            }
            rv = empirical;
        }
        else if (kind == NORMAL)
        {
            const double sigma = NumberOf(jitter.substr(colon + 1));
            // Truncated to [0, 2]: a factor of mean 1 that stays positive.
            rv = CreateObjectWithAttributes<NormalRandomVariable>("Mean",
                                                                  DoubleValue(1),
                                                                  "Variance",
                                                                  DoubleValue(sigma * sigma),
                                                                  "Bound",
                                                                  DoubleValue(1));
        }
        else
        {
            // E[e^X] = e^(mu + sigma^2 / 2) = 1.
            const double sigma = NumberOf(jitter.substr(colon + 1));
            rv =
                CreateObjectWithAttributes<LogNormalRandomVariable>("Mu",
                                                                    DoubleValue(-sigma * sigma / 2),
                                                                    "Sigma",
                                                                    DoubleValue(sigma));
        }
        NS_LOG_INFO("compute jitter " << jitter);
        runner->SetAttribute("ComputeJitter", PointerValue(rv));
        runner->AssignStreams(stream);
    }
    for (const Failure& f : failures)
    {
        NS_LOG_INFO("rank " << f.rank << " fails at " << f.at.As(Time::MS));
        runner->FailRank(f.rank, f.at);
    }
    if (!restartDelay.IsNegative())
    {
        NS_LOG_INFO("restart " << restartDelay.As(Time::MS) << " after a failure");
        runner->SetAttribute("RestartOnFailure", BooleanValue(true));
        runner->SetAttribute("RestartDelay", TimeValue(restartDelay));
    }
}

} // namespace ns3
