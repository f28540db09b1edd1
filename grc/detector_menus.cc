/*
 * Copyright 2026 gr-gpumimo authors.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A build tool: writes a GRC block file from its template with the detector menu taken
 * from the core's registry (core/detect/registry.h), so that a detector added there
 * appears in GNU Radio Companion with nothing else to edit.
 *
 *   gpumimo_detector_menus TEMPLATE.block.yml.in OUTPUT.block.yml
 *
 * @DETECTOR_OPTIONS@ becomes [ml, zf, ...] (the names) and @DETECTOR_LABELS@ the
 * entries' menu labels, in registry order.
 */
#include <gnuradio/gpumimo/core/detect/registry.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace {

using gr::gpumimo::core::detector_entry;

// A YAML flow list of one field of every entry: [a, b, c].
std::string flow_list(const char* (*field)(const detector_entry&))
{
    std::string out;
    for (const detector_entry* e : gr::gpumimo::core::detector_registry())
        out += (out.empty() ? "" : ", ") + std::string(field(*e));
    return "[" + out + "]";
}

void replace_all(std::string& s, const std::string& key, const std::string& value)
{
    for (std::size_t at = s.find(key); at != std::string::npos; at = s.find(key, at + value.size()))
        s.replace(at, key.size(), value);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::cerr << "usage: gpumimo_detector_menus TEMPLATE OUTPUT\n";
        return 2;
    }
    std::ifstream in(argv[1]);
    if (!in) {
        std::cerr << "gpumimo_detector_menus: cannot read " << argv[1] << "\n";
        return 1;
    }
    std::stringstream text;
    text << in.rdbuf();
    std::string s = text.str();
    if (s.find("@DETECTOR_OPTIONS@") == std::string::npos) {
        std::cerr << "gpumimo_detector_menus: " << argv[1] << " has no @DETECTOR_OPTIONS@\n";
        return 1;
    }
    replace_all(s, "@DETECTOR_OPTIONS@", flow_list([](const detector_entry& e) { return e.name; }));
    replace_all(s, "@DETECTOR_LABELS@", flow_list([](const detector_entry& e) { return e.label; }));
    std::ofstream out(argv[2]);
    out << s;
    if (!out) {
        std::cerr << "gpumimo_detector_menus: cannot write " << argv[2] << "\n";
        return 1;
    }
    return 0;
}
