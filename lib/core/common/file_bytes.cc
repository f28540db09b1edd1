/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reading a regular file whole, its kind and size checked on the open descriptor first
 * (so that a FIFO does not block the open and a device is never read endlessly).
 */
#include <gnuradio/gpumimo/core/file_bytes.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gr {
namespace gpumimo {
namespace core {

namespace {

// Closes the descriptor on every way out.
struct descriptor {
    int fd;
    ~descriptor()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

// The path as a message shows it: a NUL written \0 (it would end the message there).
std::string shown(const std::string& path)
{
    std::string out;
    for (const char c : path)
        out += c == '\0' ? std::string("\\0") : std::string(1, c);
    return out;
}

} // namespace

std::vector<char> read_regular_file(const std::string& path_in, std::uint64_t max_bytes)
{
    const std::string path = shown(path_in);
    if (path_in.find('\0') != std::string::npos)
        throw std::runtime_error(path + ": a path holding a NUL character");
    // O_NONBLOCK: opening a FIFO for reading would wait for a writer.
    const descriptor f{ ::open(path_in.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC) };
    if (f.fd < 0)
        throw std::runtime_error(path + ": cannot be opened (" + std::strerror(errno) + ")");
    struct stat st;
    if (::fstat(f.fd, &st) != 0)
        throw std::runtime_error(path + ": cannot be examined (" + std::strerror(errno) + ")");
    if (!S_ISREG(st.st_mode))
        throw std::runtime_error(path + ": not a regular file (a device, a FIFO or a folder)");
    const std::uint64_t size = std::uint64_t(st.st_size);
    if (size > max_bytes)
        throw std::runtime_error(path + ": " + std::to_string(size) + " bytes, more than the " +
                                 std::to_string(max_bytes) + " such a file may have");
    std::vector<char> bytes(static_cast<std::size_t>(size));
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::read(f.fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            throw std::runtime_error(path + ": cannot be read in full" +
                                     (n < 0 ? " (" + std::string(std::strerror(errno)) + ")" : std::string()));
        done += std::size_t(n);
    }
    return bytes;
}

} // namespace core
} // namespace gpumimo
} // namespace gr
