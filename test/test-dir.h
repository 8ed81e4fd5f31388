// SPDX-License-Identifier: GPL-2.0-only
// Each test's own temporary folder (implemented in test-util.cc); a header of its own so
// that suites which do not use ns-3's names (the trace readers') can include it alone.
#ifndef AI_FABRIC_TEST_DIR_H
#define AI_FABRIC_TEST_DIR_H

#include <string>

namespace aifabric
{

/**
 * The running test's own temporary folder, with a trailing '/': under TEST_TMPDIR (ctest
 * sets it to the build folder's test-tmp), else TMPDIR, else the system's temporary
 * folder (test.py in an ns-3 tree sets neither); named after the suite, the test and the
 * process, created empty on the test's first call and removed when the test passes. No
 * two tests, and no two runs at once, share a file.
 * \return the folder
 */
std::string TestDir();

} // namespace aifabric

#endif
