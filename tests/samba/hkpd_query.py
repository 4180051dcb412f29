#!/usr/bin/python3
"""Query HKEY_PERFORMANCE_DATA through Samba's own winreg client bindings
(python3-samba, samba.dcerpc.winreg), as a Windows machine's remote registry
client does: OpenHKPD, then QueryValue for each query. Used by
test_samba_live.c (docs/samba.md).

  hkpd_query.py --conf SMB.CONF --out DIR [--user U --password-file F | --anonymous]
                [--repeat N] QUERY[@SIZE] ...

QUERY is a value name ("Global", "Counter 009", "230 232", ...) sent with a
buffer of SIZE bytes (default 4 MiB), or HKLM:<key>:<value> for a value of
HKEY_LOCAL_MACHINE. For the k-th query (0-based; with --repeat the list is
sent N times, numbering on) the answer's bytes go to DIR/<k>.bin and one line
goes to stdout:

  <k> OK <type> <data_size> <data_length>
  <k> ERR <code> <message>

Exit codes: 0 every query sent (each may have failed), 2 bad usage, 3 the
connection or login was refused (first line: CONNECT <code> <message>),
4 the Samba Python bindings are missing.
"""
import os
import sys

try:
    from samba import credentials, param
    from samba.dcerpc import winreg
except ImportError as e:  # the test fails loudly on this
    print("IMPORT %s" % e)
    sys.exit(4)

MAXIMUM_ALLOWED = 0x02000000
DEFAULT_SIZE = 4 * 1024 * 1024


def main(argv):
    conf = out = user = pwfile = None
    anonymous = False
    repeat = 1
    queries = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--conf", "--out", "--user", "--password-file", "--repeat"):
            if i + 1 >= len(argv):
                print("usage: %s needs a value" % a)
                return 2
            v = argv[i + 1]
            i += 2
            if a == "--conf":
                conf = v
            elif a == "--out":
                out = v
            elif a == "--user":
                user = v
            elif a == "--password-file":
                pwfile = v
            else:
                repeat = int(v)
            continue
        if a == "--anonymous":
            anonymous = True
        else:
            queries.append(a)
        i += 1
    if not conf or not out or not queries or (not anonymous and (not user or not pwfile)):
        print("usage: hkpd_query.py --conf F --out DIR (--user U --password-file F | --anonymous) QUERY...")
        return 2
    lp = param.LoadParm()
    lp.load(conf)
    creds = credentials.Credentials()
    creds.guess(lp)
    if anonymous:
        creds.set_anonymous()
    else:
        creds.set_username(user)
        with open(pwfile) as f:
            creds.set_password(f.read().strip())
    try:
        conn = winreg.winreg("ncacn_np:127.0.0.1[\\pipe\\winreg]", lp, creds)
        hkpd = conn.OpenHKPD(None, MAXIMUM_ALLOWED)
        hklm = conn.OpenHKLM(None, MAXIMUM_ALLOWED)
    except Exception as e:  # NTSTATUSError and friends: (code, message)
        args = getattr(e, "args", ())
        code = args[0] if args else 0
        msg = args[1] if len(args) > 1 else str(e)
        print("CONNECT %s %s" % (code, msg))
        return 3
    k = 0
    for _ in range(repeat):
        for q in queries:
            size = DEFAULT_SIZE
            if "@" in q:
                q, s = q.rsplit("@", 1)
                size = int(s)
            try:
                handle = hkpd
                name = q
                if q.startswith("HKLM:"):
                    _, key, name = q.split(":", 2)
                    kn = winreg.String()
                    kn.name = key
                    handle = conn.OpenKey(hklm, kn, 0, MAXIMUM_ALLOWED)
                vn = winreg.String()
                vn.name = name
                vtype, data, dsize, dlen = conn.QueryValue(handle, vn, 0, [0] * size, size, 0)
                body = bytes(data[:dlen]) if data is not None else b""
                with open(os.path.join(out, "%d.bin" % k), "wb") as f:
                    f.write(body)
                print("%d OK %d %d %d" % (k, vtype, dsize, dlen))
            except Exception as e:
                args = getattr(e, "args", ())
                code = args[0] if args else 0
                msg = args[1] if len(args) > 1 else str(e)
                print("%d ERR %s %s" % (k, code, msg))
            sys.stdout.flush()
            k += 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
