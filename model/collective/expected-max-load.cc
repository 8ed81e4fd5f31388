// SPDX-License-Identifier: GPL-2.0-only
// ExpectedMaxLoad: what a set of equal-cost links loses to ECMP collisions, for the cost
// model (CollectivePlanCost).
#include "collective-plan-cost.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ns3
{

double
ExpectedMaxLoad(uint32_t balls, uint32_t bins, uint32_t draws)
{
    if (balls == 0 || bins == 0 || draws == 0)
    {
        return 0;
    }
    if (bins == 1 || balls == 1)
    {
        return balls;
    }
    const uint32_t floor = (balls + bins - 1) / bins; // pigeonhole: never below
    constexpr double DONE = 1e-12;
    if (balls <= EXACT_MAX_LOAD_BALLS)
    {
        // Exact: E[max] = sum over t >= 1 of P(max >= t). P(max <= t) bin by bin: bin j
        // takes Binomial(n, 1 / (bins - j)) of the n balls left, the last bin the rest;
        // over independent draws, its power.
        double e = floor;
        for (uint32_t t = floor; t < balls; ++t)
        {
            std::vector<double> left(balls + 1, 0.0); // P(n balls left, every bin so far <= t)
            left[balls] = 1;
            for (uint32_t j = 0; j + 1 < bins; ++j)
            {
                const double q = 1.0 / (bins - j);
                std::vector<double> next(balls + 1, 0.0);
                for (uint32_t n = 0; n <= balls; ++n)
                {
                    if (left[n] == 0)
                    {
                        continue;
                    }
                    double pmf = std::pow(1 - q, n); // P(this bin takes 0 of n)
                    for (uint32_t l = 0; l <= std::min(t, n); ++l)
                    {
                        next[n - l] += left[n] * pmf;
                        pmf = l < n ? pmf * (n - l) / (l + 1) * q / (1 - q) : 0;
                    }
                }
                left = std::move(next);
            }
            double atMost = 0;
            for (uint32_t n = 0; n <= t; ++n)
            {
                atMost += left[n];
            }
            const double above = 1 - std::pow(atMost, draws);
            if (above < DONE)
            {
                break;
            }
            e += above;
        }
        return e;
    }
    // Many balls: the bins' loads as independent Binomial(balls, 1 / bins) (exact
    // marginals; the dependence through the fixed total matters less as balls grow).
    // The pmf in logarithms: (1 - 1/bins)^balls underflows from about a thousand balls
    // on two links.
    const double q = 1.0 / bins;
    const double n = balls;
    double e = 0;
    double cdf = 0;
    for (uint32_t t = 0; t < balls; ++t)
    {
        cdf += std::exp(std::lgamma(n + 1) - std::lgamma(t + 1.0) - std::lgamma(n - t + 1) +
                        t * std::log(q) + (n - t) * std::log1p(-q));
        const double above = 1 - std::pow(std::min(cdf, 1.0), double(bins) * draws);
        if (above < DONE)
        {
            break;
        }
        e += above;
    }
    return std::max<double>(e, floor);
}

} // namespace ns3
