// SPDX-License-Identifier: GPL-2.0-only
#include "report-files.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <vector>

extern char** environ;

namespace ns3
{

std::string
GnuplotQuoted(const std::string& text)
{
    std::string out = "'";
    for (char c : text)
    {
        out += c == '\'' ? std::string("''") : std::string(1, c);
    }
    return out + "'";
}

bool
RunGnuplot(const std::string& script, const std::string& log)
{
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> argv{const_cast<char*>("gnuplot"),
                            const_cast<char*>(script.c_str()),
                            nullptr};
    pid_t pid;
    const int rc = posix_spawnp(&pid, "gnuplot", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0)
    {
        return false;
    }
    int status = 0;
    return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool
MakeDir(const std::string& dir, std::string* error)
{
    std::string path;
    std::istringstream parts(dir);
    std::string part;
    if (!dir.empty() && dir[0] == '/')
    {
        path = "/";
    }
    while (std::getline(parts, part, '/'))
    {
        if (part.empty())
        {
            continue;
        }
        path += part + "/";
        if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST)
        {
            *error = dir + ": cannot create the output folder (" + std::strerror(errno) + ")";
            return false;
        }
    }
    return true;
}

} // namespace ns3
