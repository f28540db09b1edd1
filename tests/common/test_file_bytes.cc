/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * core::read_regular_file, what every whole-file reader of the module goes through: a
 * regular file comes back byte for byte; a device, a FIFO (without blocking) and a folder
 * are refused naming the path, and so is a file larger than the caller allows, before
 * anything is allocated or read.
 */
#include "common/test_util.h"

#include <gnuradio/gpumimo/core/file_bytes.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

using gr::gpumimo::core::read_regular_file;

namespace {

// A fresh folder under /tmp, removed with what it holds at the end of the test.
struct scratch {
    std::string dir;
    scratch()
    {
        char name[] = "/tmp/gpumimo_file_bytes_XXXXXX";
        dir = mkdtemp(name) ? name : "";
    }
    ~scratch() { std::system(("rm -rf '" + dir + "'").c_str()); }
};

::testing::AssertionResult refused(const std::string& path, std::uint64_t max, const std::string& why)
{
    try {
        read_regular_file(path, max);
    } catch (const std::runtime_error& e) {
        const std::string m = e.what();
        if (m.rfind(path + ": ", 0) == 0 && m.find(why) != std::string::npos)
            return ::testing::AssertionSuccess();
        return ::testing::AssertionFailure() << "message '" << m << "'";
    }
    return ::testing::AssertionFailure() << path << " was read";
}

} // namespace

TEST(FileBytes, RegularFilesComeBackWhole)
{
    scratch s;
    ASSERT_FALSE(s.dir.empty());
    auto rng = gpumimo_test::make_rng(5101);
    std::string content(70000, '\0');
    for (char& c : content)
        c = char(rng() & 0xff);
    const std::string path = s.dir + "/data.bin";
    std::ofstream(path, std::ios::binary) << content;
    const std::vector<char> bytes = read_regular_file(path, 70000);
    EXPECT_EQ(std::string(bytes.begin(), bytes.end()), content);
    EXPECT_TRUE(read_regular_file(path, 1 << 20).size() == 70000u);
    EXPECT_TRUE(refused(path, 69999, "70000 bytes, more than the 69999"));
    std::ofstream(s.dir + "/empty.bin");
    EXPECT_TRUE(read_regular_file(s.dir + "/empty.bin", 10).empty());
}

TEST(FileBytes, DevicesFifosAndFoldersAreRefusedUnread)
{
    scratch s;
    ASSERT_FALSE(s.dir.empty());
    const std::string fifo = s.dir + "/pipe";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    // /dev/zero would fill any memory; the FIFO has no writer: an open without
    // O_NONBLOCK would wait here for ever.
    for (const std::string& p : { std::string("/dev/zero"), std::string("/dev/null"), fifo, s.dir })
        EXPECT_TRUE(refused(p, 1ull << 40, "not a regular file")) << p;
    EXPECT_TRUE(refused(s.dir + "/missing", 100, "cannot be opened"));
    try { // a NUL in the path shown as \0, not ending the message
        read_regular_file(std::string("a\0b", 3), 100);
        ADD_FAILURE() << "a path with a NUL was read";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), "a\\0b: a path holding a NUL character");
    }
}
