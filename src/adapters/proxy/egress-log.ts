/** One request through the proxy, as the sample keeps it. */
export interface EgressRecord {
  host: string;
  port: number;
  method: string;
  allowed: boolean;
  reason: string | null;
  bytesIn: number;
  bytesOut: number;
  at: string;
}

/** What the proxy did for one host:port, over every request to it. */
export interface EgressTally {
  target: string;
  allowed: number;
  refused: number;
  /** The latest refusal's reason. */
  reason: string | null;
  bytes: number;
}

/** Where requests to targets past the tally cap are counted, so a flood of names cannot grow the map. */
export const OTHER_TARGETS = '(other targets)';

export interface EgressLogLimits {
  /** Records kept as a sample (the latest ones). */
  sample: number;
  /** Distinct targets tallied; the rest share OTHER_TARGETS. */
  targets: number;
}

/**
 * The proxy's memory of what setup asked for, flat however many requests
 * come: counts per target (capped), a sample of the latest records, and
 * the records of connections still open (bounded by the proxy's limit on
 * open connections). A request is counted when its connection closes or
 * carries the next request, since a tunnel can still be refused, and its
 * bytes are known, only then.
 */
export class EgressLog {
  private readonly sample: EgressRecord[] = [];
  private readonly tallies = new Map<string, EgressTally>();
  private readonly open = new Map<number, EgressRecord>();

  constructor(private readonly limits: EgressLogLimits = { sample: 200, targets: 256 }) {}

  /** A new request on a connection; the connection's previous request, if any, is counted now. */
  begin(connectionId: number, record: EgressRecord): EgressRecord {
    this.end(connectionId);
    this.open.set(connectionId, record);
    this.sample.push(record);
    if (this.sample.length > this.limits.sample) this.sample.shift();
    return record;
  }

  /** The connection closed: its request is counted, with the bytes its target moved. */
  end(connectionId: number, bytes: { in: number; out: number } = { in: 0, out: 0 }): void {
    const record = this.open.get(connectionId);
    if (!record) return;
    this.open.delete(connectionId);
    record.bytesIn += bytes.in;
    record.bytesOut += bytes.out;
    this.count(this.tallies, record, this.limits.targets);
  }

  /** Copies of the sampled records, oldest first. */
  records(): EgressRecord[] {
    return this.sample.map((record) => ({ ...record }));
  }

  /** Every target's counts, the open connections' requests included. */
  targets(): EgressTally[] {
    const all = new Map([...this.tallies].map(([key, tally]) => [key, { ...tally }]));
    for (const record of this.open.values()) this.count(all, record, this.limits.targets);
    return [...all.values()];
  }

  private count(tallies: Map<string, EgressTally>, record: EgressRecord, cap: number): void {
    const named = `${record.host}:${record.port}`;
    const target = tallies.has(named) || tallies.size < cap ? named : OTHER_TARGETS;
    const tally = tallies.get(target) ?? { target, allowed: 0, refused: 0, reason: null, bytes: 0 };
    if (record.allowed) tally.allowed++;
    else {
      tally.refused++;
      tally.reason = record.reason ?? tally.reason;
    }
    tally.bytes += record.bytesIn + record.bytesOut;
    tallies.set(target, tally);
  }
}
