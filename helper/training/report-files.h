// SPDX-License-Identifier: GPL-2.0-only
#ifndef AI_FABRIC_REPORT_FILES_H
#define AI_FABRIC_REPORT_FILES_H

#include <string>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \param text any text
 * \return text as a gnuplot single-quoted string (a quote is written twice)
 */
std::string GnuplotQuoted(const std::string& text);

/**
 * \ingroup ai-fabric
 * Run gnuplot on a script, its stderr into a log, without a shell (paths come from users).
 * \param script the script file
 * \param log where gnuplot's messages go
 * \return true if gnuplot ran and succeeded
 */
bool RunGnuplot(const std::string& script, const std::string& log);

/**
 * \ingroup ai-fabric
 * Create a folder and its parents (like mkdir -p).
 * \param dir the folder
 * \param error set to "dir: cannot create the output folder (reason)" on failure
 * \return true if the folder exists afterwards
 */
bool MakeDir(const std::string& dir, std::string* error);

} // namespace ns3

#endif
