// SPDX-License-Identifier: GPL-2.0-only
#ifndef QUANTITY_TEXT_H
#define QUANTITY_TEXT_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * Parse a rate written like "400Gbps": a non-negative decimal number (no sign, no space,
 * optional exponent) and a unit as ns-3's DataRate spells it (bps, b/s, Bps, B/s with a
 * k/K, M, G or T prefix, and the binary Kib/s, KiB/s, ...). Files name rates this way;
 * DataRate's own parser aborts on bad text, this one says no.
 * \param text the text
 * \param rate set to the rate (rounded to whole bit/s; at least 1, below 1.8e19)
 * \param why if not null, set to what was wrong beyond the format ("unknown unit ...",
 *        or empty)
 * \return true if text is a rate
 */
bool TextToDataRate(const std::string& text, DataRate& rate, std::string* why = nullptr);

/**
 * Parse a duration written like "1us": a non-negative decimal number and one of s, ms,
 * us, ns, ps; at most an hour (anything longer in a network file is a typo, and the
 * bound keeps the tick count safe).
 * \param text the text
 * \param time set to the duration
 * \param why if not null, set to what was wrong beyond the format ("unknown unit ...",
 *        "longer than an hour", or empty)
 * \return true if text is a duration
 */
bool TextToTime(const std::string& text, Time& time, std::string* why = nullptr);

/**
 * Parse a byte size written like "16M": a non-negative decimal number (no sign, no space,
 * optional exponent) and an optional unit. Single letters and the IEC forms are binary,
 * as in nccl-tests (K = KiB = 1024, M = MiB, G = GiB, T = TiB; lower-case k, m, g, t
 * too); the SI forms with a B are decimal, as in DataRate's "MB/s" (kB = KB = 1000,
 * MB, GB, TB); "B" or nothing means bytes. The result must be a whole number of bytes
 * below 2^62 ("1.5K" is 1536 B, "0.3K" is refused).
 * \param text the text
 * \param bytes set to the size
 * \param why if not null, set to what was wrong beyond the format ("unknown unit ...",
 *        "not a whole number of bytes", "too large", or empty)
 * \return true if text is a size
 */
bool TextToBytes(const std::string& text, uint64_t& bytes, std::string* why = nullptr);

/**
 * Whether text is an integer written in full: digits only (after one '-' if allowMinus),
 * at most 19 of them, nothing before or after (ns-3 reads "1.5" as 1 and aborts on
 * "18 links" in attributes).
 */
bool IsIntegerText(const std::string& text, bool allowMinus = false);

/**
 * Parse a finite number written in full (strtod's syntax: "2.5", "312e12"; no leading
 * space, nothing after, no inf or nan).
 * \return true if text is such a number; value is set then
 */
bool TextToNumber(const std::string& text, double& value);

/**
 * Parse a flag: "true", "1" or "on"; "false", "0" or "off" (ns-3's BooleanValue reads
 * true/1 and false/0; on/off as switches are spoken of, e.g. --alone=off).
 * \return true if text is a flag; value is set then
 */
bool TextToBool(const std::string& text, bool& value);

/// The flag forms TextToBool accepts, for help texts and messages.
extern const char* const FLAG_FORMS;

/// The size forms TextToBytes accepts, for help texts and messages ("like 4096, 64K, ...").
extern const char* const BYTES_FORMS;

} // namespace ns3

#endif // QUANTITY_TEXT_H
