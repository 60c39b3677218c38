#!/usr/bin/env python3
"""Send human monitor (HMP) commands to a running QEMU and print the replies.

    hmp.py SOCKET COMMAND...

SOCKET is the unix socket of QEMU's "-monitor unix:SOCKET,server=on,wait=off".
Each COMMAND is one HMP command line ("info registers -a", "quit").  Exits 1
if QEMU does not answer within --timeout seconds (default 10): a monitor
that stays silent means QEMU's main loop is stuck, not only the guest.
"""

import argparse
import socket
import sys
import time

PROMPT = b"(qemu) "


def read_until_prompt(sock, deadline):
    data = b""
    while not data.endswith(PROMPT):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no (qemu) prompt")
        sock.settimeout(left)
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("socket")
    ap.add_argument("commands", nargs="+")
    args = ap.parse_args()

    deadline = time.monotonic() + args.timeout
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(args.timeout)
            sock.connect(args.socket)
            read_until_prompt(sock, deadline)  # the banner
            for cmd in args.commands:
                sock.sendall(cmd.encode() + b"\n")
                if cmd == "quit":
                    # QEMU closes the monitor as it exits.
                    sock.settimeout(max(deadline - time.monotonic(), 0.1))
                    while sock.recv(65536):
                        pass
                    break
                reply = read_until_prompt(sock, deadline).decode(errors="replace")
                # HMP echoes the command line (with terminal escapes) first.
                lines = reply.replace("\r", "").split("\n")[1:-1]
                print("\n".join(lines))
    except (OSError, TimeoutError) as e:
        print(f"hmp: {args.socket}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
