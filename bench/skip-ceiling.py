#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""How much of a run's RDMA traffic a steady-state fast-forward could skip at most.

Reads the fct.csv of a packet-reference run (ai-fabric-sim --fast-forward=off: one row per
RDMA message, src,dst,bytes,start_us,end_us,...) and counts the bytes sent while a skip
could be under way, three ways:

  per queue pair  each message alone: a queue pair that could leave a skip at its
                  message's end and join again after its own window;
  per NIC         the messages of one sending NIC together (its channels);
  per rail        the messages of the NICs of one rail together (src rank modulo the GPUs
                  per server): RdmaFastForward's groups on a rail-optimized fabric.

A group may skip at time t when every one of its messages under way at t is past its start
plus SETTLE (the load settles one base RTT after a start, then the warm window) and before
its last END_PACKETS packets, and no message of the group started or ended within SETTLE
before t; only stretches of at least MIN_SKIP count. A message's pace is taken as its bytes
over its duration. These are the fast-forward's own rules (RdmaFastForward: SteadyWindow,
WarmWindow, MinSkip, EndPackets), applied to timings that did not change under it, so the
figures are ceilings, not predictions.

    python3 bench/skip-ceiling.py OUT/fct.csv [--settle=6.2] [--gpus-per-server=8]
        [--end-packets=4] [--mtu=4096] [--min-skip=20]

The last three default to the attributes' defaults (RdmaFastForward::EndPackets and
MinSkip, the NICs' payload MTU); give the run's own if it changed them.
"""
import argparse
import collections
import csv
import math

def skippable_share(messages, key, settle, min_skip):
    """Share of all bytes sent inside skippable stretches of the groups key defines."""
    groups = collections.defaultdict(list)
    for m in messages:
        groups[key(m)].append(m)
    skipped = 0.0
    for members in groups.values():
        # Sweep the group's edges in time order, keeping: the messages under way, those
        # under way but outside their window, their summed pace, and the last start or end.
        events = []
        for m in members:
            lo, hi = m["start"] + settle, m["end"] - m["tail"]
            events.append((m["start"], 1, 1, m["rate"], True))
            if lo < hi:
                events.append((lo, 0, -1, 0.0, False))
                events.append((hi, 0, 1, 0.0, False))
            events.append((m["end"], -1, -1, -m["rate"], True))
            events.append((m["end"] + settle, 0, 0, 0.0, False))
        events.sort(key=lambda e: e[0])
        active = outside = 0
        rate = 0.0
        last_change = -math.inf
        stretch = None
        stretches = []
        i = 0
        while i < len(events):
            t = events[i][0]
            while i < len(events) and events[i][0] == t:
                _, da, do, dr, change = events[i]
                active += da
                outside += do
                rate += dr
                if change:
                    last_change = t
                i += 1
            if i == len(events):
                break
            a, b = t, events[i][0]
            ok = active > 0 and outside == 0 and (a + b) / 2 - last_change >= settle
            if ok:
                if stretch is None:
                    stretch = [a, b, 0.0]
                stretch[1] = b
                stretch[2] += (b - a) * rate
            elif stretch is not None:
                stretches.append(stretch)
                stretch = None
        if stretch is not None:
            stretches.append(stretch)
        skipped += sum(s[2] for s in stretches if s[1] - s[0] >= min_skip)
    return skipped / sum(m["bytes"] for m in messages)


class OneLineParser(argparse.ArgumentParser):
    """Bad options: one line naming them, exit status 1."""

    def error(self, message):
        raise SystemExit(f"skip-ceiling: {message}")


def main():
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("fct", help="fct.csv of a run with --fast-forward=off")
    parser.add_argument("--settle", type=float, default=6.2,
                        help="us after a start or end before a skip (default 6.2)")
    parser.add_argument("--gpus-per-server", type=int, default=8)
    parser.add_argument("--end-packets", type=int, default=4,
                        help="packets sent for real at a message's end (default 4)")
    parser.add_argument("--mtu", type=int, default=4096, help="payload bytes a packet")
    parser.add_argument("--min-skip", type=float, default=20.0,
                        help="us: shorter stretches do not count (default 20)")
    args = parser.parse_args()
    for name, value in (("--gpus-per-server", args.gpus_per_server),
                        ("--end-packets", args.end_packets), ("--mtu", args.mtu)):
        if value < 1:
            raise SystemExit(f"skip-ceiling: {name}: expected a positive integer")
    for name, value in (("--settle", args.settle), ("--min-skip", args.min_skip)):
        if not math.isfinite(value) or value < 0:
            raise SystemExit(f"skip-ceiling: {name}={value}: expected microseconds, 0 or more")
    messages = []
    try:
        with open(args.fct, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            for i, row in enumerate(reader):
                try:
                    start, end = float(row["start_us"]), float(row["end_us"])
                    src, size = int(row["src"]), int(row["bytes"])
                    if not (math.isfinite(start) and math.isfinite(end)) or size < 0:
                        raise ValueError
                except (KeyError, TypeError, ValueError):
                    raise SystemExit(f"skip-ceiling: {args.fct}: line {reader.line_num}: "
                                     "expected src, bytes, start_us and end_us (an fct.csv)")
                if end <= start:
                    continue
                rate = size / (end - start)
                messages.append({"id": i, "src": src, "bytes": size, "start": start,
                                 "end": end, "rate": rate,
                                 "tail": args.end_packets * args.mtu / rate})
    except OSError as e:
        raise SystemExit(f"skip-ceiling: {args.fct}: {e.strerror}")
    except UnicodeDecodeError:
        raise SystemExit(f"skip-ceiling: {args.fct}: not a text file (expected an fct.csv)")
    if not messages:
        raise SystemExit(f"skip-ceiling: {args.fct}: no RDMA message with a duration")
    gpus = args.gpus_per_server
    print(f"{len(messages)} messages, settle {args.settle} us")
    for label, key in (("per queue pair:", lambda m: m["id"]),
                       ("per NIC:       ", lambda m: m["src"]),
                       ("per rail:      ", lambda m: m["src"] % gpus)):
        share = skippable_share(messages, key, args.settle, args.min_skip)
        print(f"{label} {100 * share:.1f} %")


if __name__ == "__main__":
    main()
