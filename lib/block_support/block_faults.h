/* -*- c++ -*- */
/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What every streaming block of the module does with trouble in its work(): an
 * exception never leaves it (GNU Radio's scheduler would end the block's thread and
 * tb.run() would never return), and what it drops is counted and logged through the
 * block's logger without flooding it.
 */
#ifndef INCLUDED_GPUMIMO_BLOCK_FAULTS_H
#define INCLUDED_GPUMIMO_BLOCK_FAULTS_H

#include <gnuradio/logger.h>

#include <chrono>
#include <cstdint>
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace gr {
namespace gpumimo {

/*!
 * Warnings of one kind at most once per interval: the first at once, later ones as one
 * line saying how many were held back. Each kind (a short fixed text such as "dropped
 * frame") has its own clock. A flowgraph fed bad data for an hour logs a few hundred
 * lines, not millions, and no event goes uncounted (the blocks count them too).
 */
class rate_limited_log
{
public:
    using clock = std::chrono::steady_clock;

    explicit rate_limited_log(gr::logger_ptr logger,
                              clock::duration interval = std::chrono::seconds(5))
        : d_logger(std::move(logger)), d_interval(interval)
    {
    }

    /*! One event of `kind`: logs message() (a callable giving the text, built only when
     *  it is logged) as a warning, or counts it towards the next line of its kind. */
    template <typename Message>
    void warn(const char* kind, Message&& message)
    {
        log(kind, false, std::forward<Message>(message));
    }
    /*! The same at error level. */
    template <typename Message>
    void error(const char* kind, Message&& message)
    {
        log(kind, true, std::forward<Message>(message));
    }

private:
    struct state {
        clock::time_point last{};
        std::uint64_t held = 0;
        bool logged = false;
    };

    template <typename Message>
    void log(const char* kind, bool is_error, Message&& message)
    {
        std::string held_note;
        {
            std::lock_guard<std::mutex> lock(d_mutex);
            state& s = d_kinds[kind];
            const clock::time_point now = clock::now();
            if (s.logged && now - s.last < d_interval) {
                s.held++;
                return;
            }
            if (s.held)
                held_note = " (and " + std::to_string(s.held) + " more of this kind since the "
                                                                 "last such line)";
            s.logged = true;
            s.last = now;
            s.held = 0;
        }
        const std::string text = std::string(message()) + held_note;
        if (is_error)
            d_logger->error("{}", text);
        else
            d_logger->warn("{}", text);
    }

    gr::logger_ptr d_logger;
    const clock::duration d_interval;
    std::mutex d_mutex;
    std::map<std::string, state> d_kinds;
};

/*!
 * The failures a block caught in work(): counted, logged at error level (rate limited),
 * and described. A block calls caught() from a catch (...) block around its work and
 * then does what its kind of block does with the items at hand (erases them, drops the
 * frame, ends the stream), so that the flowgraph goes on.
 */
class work_faults
{
public:
    explicit work_faults(rate_limited_log& log) : d_log(log) {}

    /*! Counts the exception being handled and logs it with `consequence` (what the
     *  block did about it, e.g. "its 3 frames leave as zero LLRs"). */
    void caught(const std::string& consequence)
    {
        d_count++;
        std::string what = "unknown exception";
        try {
            throw;
        } catch (const std::exception& e) {
            what = e.what();
        } catch (...) {
        }
        const std::uint64_t count = d_count;
        d_log.error("work failure", [&] {
            return "work() failed: " + what + "; " + consequence + " (" +
                   std::to_string(count) + " failures so far)";
        });
    }

    std::uint64_t count() const { return d_count; }

private:
    rate_limited_log& d_log;
    std::uint64_t d_count = 0;
};

} // namespace gpumimo
} // namespace gr

#endif
