#!/usr/bin/env python3
"""Logging TCP proxy for fio's client/server protocol (loopback only).

Usage:
    wire-record.py --listen 127.0.0.1,PORT_A --connect 127.0.0.1,PORT_B --out DIR
                   [--timeout SECONDS] [--keep-slack]

Accepts ONE connection on PORT_A (the fio client), connects to PORT_B (the fio
server) and forwards bytes unchanged in both directions.  For each direction it
parses fio's 24-byte frame headers, checks both CRC-16s, reassembles MORE
chains into messages and writes:

  DIR/NNNN-c2s-OPNAME.bin / DIR/NNNN-s2c-OPNAME.bin
      the reassembled message body (NNNN = global message order, from 0001)
  DIR/trace.tsv
      one line per message (after a header line):
      order, ms (since the connect, at the message's first frame), dir,
      version, opcode name, tag (hex), body length, frames, crc (ok/BAD)
  DIR/frames.tsv
      one line per frame: order of its message, ms, dir, version, opcode,
      flags, tag, pdu_len, header crc (hex), payload crc (hex), crc check

JOB bodies from the real fio client carry ~8 KiB of uninitialised client
heap after the job text's NUL; the saved .bin has those slack bytes zeroed
(the forwarded bytes are untouched) unless --keep-slack is given.

Exits when both sides have closed (or one reset), or after --timeout seconds
(exit status 2).  Prints "listening HOST,PORT" on stdout once it accepts.
Python 3 standard library only.
"""

import argparse
import ipaddress
import os
import select
import socket
import struct
import sys
import time

OPNAMES = {
    1: "QUIT", 2: "EXIT", 3: "JOB", 4: "JOBLINE", 5: "TEXT", 6: "TS", 7: "GS",
    8: "SEND_ETA", 9: "ETA", 10: "PROBE", 11: "START", 12: "STOP", 13: "DU",
    14: "SERVER_START", 15: "ADD_JOB", 16: "RUN", 17: "IOLOG",
    18: "UPDATE_JOB", 19: "LOAD_FILE", 20: "VTRIGGER", 21: "SENDFILE",
    22: "JOB_OPT",
}

HDR = struct.Struct("<HHIQIHH")  # version, opcode, flags, tag, pdu_len, hcrc, pcrc
FLAG_MORE = 1


def _crc16_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0xA001 if c & 1 else c >> 1
        table.append(c)
    return table


CRC_TABLE = _crc16_table()


def crc16(data, crc=0):
    """CRC-16/ARC (reflected 0x8005, init 0, no final xor)."""
    t = CRC_TABLE
    for b in data:
        crc = (crc >> 8) ^ t[(crc ^ b) & 0xFF]
    return crc


assert crc16(b"123456789") == 0xBB3D


def opname(op):
    return OPNAMES.get(op, "OP%d" % op)


def parse_addr(text):
    """'HOST,PORT' -> (family, host, port); loopback addresses only."""
    if "," not in text:
        raise SystemExit("address must be HOST,PORT: %r" % text)
    host, port = text.rsplit(",", 1)
    if host == "localhost":
        host = "127.0.0.1"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        raise SystemExit("not an IP literal: %r" % host)
    if not ip.is_loopback:
        raise SystemExit("loopback addresses only: %r" % host)
    fam = socket.AF_INET6 if ip.version == 6 else socket.AF_INET
    return fam, host, int(port)


class Recorder:
    def __init__(self, out, keep_slack):
        self.out = out
        self.keep_slack = keep_slack
        self.t0 = None
        self.order = 0
        os.makedirs(out, exist_ok=True)
        self.trace = open(os.path.join(out, "trace.tsv"), "w")
        self.trace.write("order\tms\tdir\tversion\topcode\ttag\tbody_len\tframes\tcrc\n")
        self.frames = open(os.path.join(out, "frames.tsv"), "w")
        self.frames.write("msg\tms\tdir\tversion\topcode\tflags\ttag\tpdu_len\thdr_crc\tpdu_crc\tcrc\n")
        self.errors = 0

    def ms(self):
        return (time.monotonic() - self.t0) * 1000.0

    def message(self, d, m):
        self.order += 1
        n = self.order
        body = bytes(m["body"])
        if m["op"] == 3 and not self.keep_slack and len(body) >= 8:
            # cmd_job_pdu: u32 buf_len, u32 client_type, text, NUL, slack
            nul = body.find(b"\0", 8)
            if nul >= 0:
                body = body[: nul + 1] + bytes(len(body) - nul - 1)
        name = "%04d-%s-%s.bin" % (n, d, opname(m["op"]))
        with open(os.path.join(self.out, name), "wb") as f:
            f.write(body)
        self.trace.write("%d\t%.1f\t%s\t%d\t%s\t0x%x\t%d\t%d\t%s\n" % (
            n, m["ms"], d, m["ver"], opname(m["op"]), m["tag"], len(body),
            len(m["frames"]), "ok" if m["crc_ok"] else "BAD"))
        for (fms, ver, op, flags, tag, plen, hcrc, pcrc, ok) in m["frames"]:
            self.frames.write("%d\t%.1f\t%s\t%d\t%s\t%d\t0x%x\t%d\t0x%04x\t0x%04x\t%s\n" % (
                n, fms, d, ver, opname(op), flags, tag, plen, hcrc, pcrc,
                "ok" if ok else "BAD"))
        self.trace.flush()
        self.frames.flush()

    def close(self):
        self.trace.close()
        self.frames.close()


class Direction:
    """Incremental frame parser for one direction."""

    def __init__(self, name, rec):
        self.name = name
        self.rec = rec
        self.buf = bytearray()
        self.cur = None  # message being reassembled
        self.dead = False  # unparseable stream: stop parsing, keep forwarding

    def feed(self, data):
        if self.dead:
            return
        self.buf += data
        while len(self.buf) >= HDR.size:
            ver, op, flags, tag, plen, hcrc, pcrc = HDR.unpack_from(self.buf, 0)
            hok = crc16(self.buf[:20]) == hcrc
            if not hok and plen > 1024 * 1024:
                sys.stderr.write("wire-record: %s: unparseable header, stop parsing\n" % self.name)
                self.rec.errors += 1
                self.dead = True
                return
            if len(self.buf) < HDR.size + plen:
                return
            payload = bytes(self.buf[HDR.size: HDR.size + plen])
            del self.buf[: HDR.size + plen]
            pok = crc16(payload) == pcrc if plen else True
            ok = hok and pok
            if not ok:
                self.rec.errors += 1
                sys.stderr.write("wire-record: %s: CRC mismatch on %s frame\n" % (self.name, opname(op)))
            frame = (self.rec.ms(), ver, op, flags, tag, plen, hcrc, pcrc, ok)
            if self.cur is not None and self.cur["op"] != op:
                sys.stderr.write("wire-record: %s: fragment opcode mismatch (%s != %s)\n"
                                 % (self.name, opname(self.cur["op"]), opname(op)))
                self.rec.errors += 1
                self.cur["crc_ok"] = False
                self.rec.message(self.name, self.cur)
                self.cur = None
            if self.cur is None:
                self.cur = {"ms": frame[0], "ver": ver, "op": op, "tag": tag,
                            "body": bytearray(), "frames": [], "crc_ok": True}
            self.cur["body"] += payload
            self.cur["frames"].append(frame)
            self.cur["crc_ok"] &= ok
            if not flags & FLAG_MORE:
                self.rec.message(self.name, self.cur)
                self.cur = None

    def finish(self):
        if self.dead:
            return
        if self.cur is not None:
            sys.stderr.write("wire-record: %s: stream ended inside a MORE chain\n" % self.name)
            self.cur["crc_ok"] = False
            self.rec.message(self.name, self.cur)
            self.cur = None
        if self.buf:
            sys.stderr.write("wire-record: %s: %d trailing bytes (partial frame)\n"
                             % (self.name, len(self.buf)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--listen", required=True, help="HOST,PORT to accept the fio client on")
    ap.add_argument("--connect", required=True, help="HOST,PORT of the fio server")
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="give up after this many seconds (default 60)")
    ap.add_argument("--keep-slack", action="store_true",
                    help="save JOB bodies exactly as sent (with the client's heap slack)")
    a = ap.parse_args()

    lfam, lhost, lport = parse_addr(a.listen)
    cfam, chost, cport = parse_addr(a.connect)
    deadline = time.monotonic() + a.timeout
    rec = Recorder(a.out, a.keep_slack)

    ls = socket.socket(lfam, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((lhost, lport))
    ls.listen(1)
    print("listening %s,%d" % (lhost, ls.getsockname()[1]), flush=True)

    ls.settimeout(max(0.1, deadline - time.monotonic()))
    try:
        cs, _ = ls.accept()
    except socket.timeout:
        sys.stderr.write("wire-record: timeout waiting for a client\n")
        rec.close()
        return 2
    ls.close()
    rec.t0 = time.monotonic()
    ss = socket.create_connection((chost, cport), timeout=5)
    for s in (cs, ss):
        s.setblocking(False)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    dirs = {cs: Direction("c2s", rec), ss: Direction("s2c", rec)}
    peer = {cs: ss, ss: cs}
    open_rd = {cs, ss}
    pending = {cs: bytearray(), ss: bytearray()}  # bytes waiting to be written TO key
    status = 0
    reset = False
    while open_rd or any(pending.values()):
        left = deadline - time.monotonic()
        if left <= 0:
            sys.stderr.write("wire-record: timeout\n")
            status = 2
            break
        wr = [s for s in (cs, ss) if pending[s]]
        r, w, _ = select.select(list(open_rd), wr, [], min(left, 0.5))
        reset = False
        for s in r:
            try:
                data = s.recv(65536)
            except ConnectionResetError:
                data = None
            if data is None:
                sys.stderr.write("wire-record: %s reset\n" % ("client" if s is cs else "server"))
                reset = True
                open_rd.discard(s)
                continue
            if not data:
                open_rd.discard(s)
                if not pending[peer[s]]:
                    try:
                        peer[s].shutdown(socket.SHUT_WR)
                    except OSError:
                        pass
                continue
            pending[peer[s]] += data
            dirs[s].feed(data)
        for s in w:
            try:
                n = s.send(pending[s])
                del pending[s][:n]
            except (BrokenPipeError, ConnectionResetError):
                sys.stderr.write("wire-record: write to %s failed\n" % ("client" if s is cs else "server"))
                pending[s].clear()
                reset = True
            if not pending[s] and peer[s] not in open_rd:
                try:
                    s.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
        if reset:
            # flush what we can, then pass the reset on by closing both
            for s in (cs, ss):
                if pending[s]:
                    try:
                        s.setblocking(True)
                        s.settimeout(1)
                        s.sendall(pending[s])
                    except OSError:
                        pass
                    pending[s].clear()
            break
    for s in (cs, ss):
        try:
            if reset or status:
                # abortive close, so the other side sees a reset too
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.close()
        except OSError:
            pass
    dirs[cs].finish()
    dirs[ss].finish()
    rec.close()
    if rec.errors:
        sys.stderr.write("wire-record: %d framing/CRC errors\n" % rec.errors)
        status = status or 1
    return status


if __name__ == "__main__":
    sys.exit(main())
