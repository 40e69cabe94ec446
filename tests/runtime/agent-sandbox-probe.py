# Run as a confined agent by agent-sandbox.test.ts: tries what the sandbox must refuse and prints one JSON object of outcomes.
import ctypes, errno, json, os, resource, signal, socket, sys

args = json.loads(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
out = {}

def attempt(name, fn):
    try:
        fn()
        out[name] = 'ok'
    except OSError as e:
        out[name] = errno.errorcode.get(e.errno, str(e.errno))
    except ValueError as e:
        out[name] = 'ValueError'

def read(path):
    with open(path, 'rb') as f:
        f.read(1)

def write(path):
    with open(path, 'w') as f:
        f.write('x')

def connect(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.settimeout(5)
        s.connect(('127.0.0.1', port))
    finally:
        s.close()

def raw_call(fn):
    def run():
        if fn() == -1:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))
    return run

attempt('readSecret', lambda: read(args['secret']))
attempt('readOtherAgent', lambda: read(args['otherFile']))
attempt('writeOwn', lambda: write(os.path.join(os.getcwd(), 'own.txt')))
attempt('writeWorkspaceRoot', lambda: write(os.path.join(args['workspace'], 'escaped.txt')))
attempt('writeSharedTmp', lambda: write(os.path.join(args['sharedTmp'], 'escaped.txt')))
attempt('writePrivateTmp', lambda: write(os.path.join(os.environ['TMPDIR'], 'scratch.txt')))
attempt('readApiEnviron', lambda: read('/proc/%d/environ' % args['apiPid']))
attempt('signalApi', lambda: os.kill(args['apiPid'], signal.SIGCONT))
attempt('connectAllowed', lambda: connect(args['allowedPort']))
attempt('connectDenied', lambda: connect(args['deniedPort']))
attempt('udpSocket', lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close())
attempt('udp6Socket', lambda: socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).close())
attempt('rawSocket', lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP).close())
attempt('netlinkSocket', lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0).close())
attempt('packetSocket', lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0).close())
attempt('unixSocket', lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close())
attempt('socketpair', lambda: [s.close() for s in socket.socketpair()])
attempt('ptraceAttach', raw_call(lambda: libc.ptrace(16, args['apiPid'], None, None)))
attempt('unshareUser', raw_call(lambda: libc.unshare(0x10000000)))
attempt('unshareNet', raw_call(lambda: libc.unshare(0x40000000)))
attempt('raiseNofile', lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1] + 1,) * 2))
out['rlimits'] = {name: list(resource.getrlimit(getattr(resource, 'RLIMIT_' + name.upper()))) for name in ('data', 'cpu', 'nofile', 'fsize')}
status = dict(line.split(':\t', 1) for line in open('/proc/self/status').read().splitlines() if ':\t' in line)
out['seccomp'] = status.get('Seccomp', '').strip()
out['noNewPrivs'] = status.get('NoNewPrivs', '').strip()
out['capabilities'] = [status.get(k, '').strip() for k in ('CapEff', 'CapPrm', 'CapBnd', 'CapAmb')]
out['env'] = {k: os.environ.get(k) for k in ('TMPDIR', 'HOME')}
out['ids'] = [os.getuid(), os.getgid(), os.getgroups()]
print(json.dumps(out))
