/**
 * How many Step Functions state transitions one execution takes, read from the ASL itself:
 * Standard workflows bill every state entered (retries included), so the count is the states on
 * the execution's path, each Map iteration's states included.
 *
 * A scale action's path: the shortest one from StartAt to a Succeed state that passes through
 * the Task making the change (`write`, an aws-sdk action such as
 * sagemaker:updateEndpointWeightsAndCapacities) with the outcome `applied` written on the way
 * (Choices on `$.outcome.*` follow what was written), a Map counted with one item (one variant).
 * Then the wait for the change: a Wait state on a loop back to a Choice of that path after the
 * write is entered once per poll; `changeSeconds / Wait.Seconds` polls, each costing the loop's
 * states. Worked example (statemachines/scale-target.asl.json, a variant, pinned by
 * tests/cost/transitions.test.ts): 22 states on the path, and a 30 s poll loop of 4 states (wait,
 * count, read, decide); a change that serves after 8 minutes is 16 polls, 22 + 64 = 86.
 */

type State = Record<string, unknown> & { Type?: string };
interface Definition {
  StartAt: string;
  States: Record<string, State>;
}

export interface ExecutionPath {
  /** State names entered, in order, on the shortest successful path through the write. */
  states: string[];
  /** Transitions of the path: its states, plus each Map's iteration states (one item). */
  transitions: number;
  /** The poll loop after the write: its Wait's seconds and states per poll; null without one. */
  poll: { waitSeconds: number; states: number } | null;
  /** DynamoDB items the path writes (putItem, updateItem) and reads (getItem), each one unit. */
  dynamoWrites: number;
  dynamoReads: number;
}

/** Where a state may go next, Catch aside (a successful path catches nothing). */
function nextOf(s: State): string[] {
  const out: string[] = [];
  if (typeof s.Next === 'string') out.push(s.Next);
  if (Array.isArray(s.Choices))
    for (const c of s.Choices as { Next?: string }[]) if (c.Next) out.push(c.Next);
  if (typeof s.Default === 'string') out.push(s.Default);
  return out;
}

/** The outcome status of a change carried out (the Pass state that describes the success). */
const APPLIED = 'applied';

const isWrite = (s: State, write: string) =>
  s.Type === 'Task' && String(s.Resource ?? '').endsWith(`:${write}`);

/** States one Map iteration enters: its processor's shortest path from StartAt to an End. */
function iterationStates(s: State): number {
  const processor = (s.ItemProcessor ?? s.Iterator) as Definition | undefined;
  if (!processor) return 0;
  const path = shortest(
    processor,
    (_, st) => st.End === true || st.Type === 'Succeed',
    () => true,
  );
  return path ? path.length : 0;
}

/** Values the path knows at a state: the execution input's facts and what Pass states wrote to `$.outcome`. */
type Known = Record<string, unknown>;
type Condition = {
  Variable?: string;
  StringEquals?: string;
  And?: Condition[];
  Or?: Condition[];
  Not?: Condition;
  Next?: string;
};

/** A Choice rule against what is known: true, false, or null when it depends on the unknown. */
function holds(c: Condition, known: Known): boolean | null {
  const all = (list: Condition[], v: boolean) => list.map((x) => holds(x, known)).every((r) => r === v);
  const any = (list: Condition[], v: boolean) => list.map((x) => holds(x, known)).some((r) => r === v);
  if (c.And) return any(c.And, false) ? false : all(c.And, true) ? true : null;
  if (c.Or) return any(c.Or, true) ? true : all(c.Or, false) ? false : null;
  if (c.Not) {
    const r = holds(c.Not, known);
    return r === null ? null : !r;
  }
  if (c.Variable !== undefined && c.StringEquals !== undefined && Object.hasOwn(known, c.Variable))
    return known[c.Variable] === c.StringEquals;
  return null;
}

/**
 * The branches a state may take: a Choice's rules judged against what is known (StringEquals on
 * known values; anything else may go either way), the first rule that surely holds ending the
 * list, and the Default only when none surely holds. Catch aside: a successful path catches nothing.
 */
function branchesOf(s: State, known: Known): string[] {
  if (!Array.isArray(s.Choices)) return nextOf(s);
  const out: string[] = [];
  for (const c of s.Choices as Condition[]) {
    const r = holds(c, known);
    if (r !== false && c.Next) out.push(c.Next);
    if (r === true) return out;
  }
  if (typeof s.Default === 'string') out.push(s.Default);
  return out;
}

/** A Pass state writing `$.outcome` makes its fields known as `$.outcome.<field>`. */
function knownAfter(s: State, known: Known): Known {
  if (s.Type !== 'Pass' || s.ResultPath !== '$.outcome' || typeof s.Parameters !== 'object' || !s.Parameters)
    return known;
  const out: Known = Object.fromEntries(Object.entries(known).filter(([k]) => !k.startsWith('$.outcome.')));
  for (const [k, v] of Object.entries(s.Parameters)) if (!k.endsWith('.$')) out[`$.outcome.${k}`] = v;
  return out;
}

/**
 * Breadth-first: the shortest state path from StartAt to a state `done` accepts (given the outcome
 * written on the way), visiting a state `need` accepts.
 */
function shortest(
  def: Definition,
  done: (name: string, s: State, known: Known) => boolean,
  need: (name: string, s: State) => boolean,
  input: Known = {},
): string[] | null {
  type Node = { name: string; met: boolean; known: Known; path: string[] };
  const start = def.States[def.StartAt];
  if (!start) return null;
  const queue: Node[] = [
    {
      name: def.StartAt,
      met: need(def.StartAt, start),
      known: knownAfter(start, input),
      path: [def.StartAt],
    },
  ];
  const seen = new Set<string>();
  for (let i = 0; i < queue.length; i++) {
    const { name, met, known, path } = queue[i]!;
    const s = def.States[name]!;
    if (met && done(name, s, known)) return path;
    for (const next of branchesOf(s, known)) {
      const n = def.States[next];
      if (!n) continue;
      const nextMet = met || need(next, n);
      const nextKnown = knownAfter(n, known);
      const key = `${next}|${nextMet}|${JSON.stringify(nextKnown)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      queue.push({ name: next, met: nextMet, known: nextKnown, path: [...path, next] });
    }
  }
  return null;
}

/** The shortest cycle from `from` back to itself through a Wait state, as state names (from excluded). */
function pollLoop(def: Definition, from: string): { wait: State; states: number } | null {
  const s = def.States[from];
  if (!s) return null;
  let best: { wait: State; states: number } | null = null;
  for (const first of nextOf(s)) {
    const w = def.States[first];
    if (w?.Type !== 'Wait') continue;
    const back = shortest(
      { StartAt: first, States: def.States },
      (n) => n === from,
      () => true,
    );
    if (back && (!best || back.length < best.states)) best = { wait: w, states: back.length };
  }
  return best;
}

/**
 * The path of a successful execution that makes the change `write`, for an execution input with
 * `input` (such as { kind: 'sagemaker-variant' }: Choices on `$.kind` follow it); null when none.
 */
export function executionPath(
  definition: unknown,
  write: string,
  input: Record<string, string> = {},
): ExecutionPath | null {
  const def = definition as Definition;
  const facts = Object.fromEntries(Object.entries(input).map(([k, v]) => [`$.${k}`, v]));
  const states = shortest(
    def,
    (_, s, known) => s.Type === 'Succeed' && known['$.outcome.status'] === APPLIED,
    (_, s) => isWrite(s, write),
    facts,
  );
  if (!states) return null;
  let transitions = 0;
  for (const name of states)
    transitions += 1 + (def.States[name]!.Type === 'Map' ? iterationStates(def.States[name]!) : 0);
  const afterWrite = states.slice(states.findIndex((n) => isWrite(def.States[n]!, write)));
  let poll: ExecutionPath['poll'] = null;
  for (const name of afterWrite) {
    const loop = def.States[name]!.Type === 'Choice' ? pollLoop(def, name) : null;
    if (loop) {
      poll = { waitSeconds: Number(loop.wait.Seconds ?? 0), states: loop.states };
      break;
    }
  }
  const resources = states.map((n) => String(def.States[n]!.Resource ?? ''));
  const count = (re: RegExp) => resources.filter((r) => re.test(r)).length;
  return {
    states,
    transitions,
    poll,
    dynamoWrites: count(/:dynamodb:(putItem|updateItem)$/),
    dynamoReads: count(/:dynamodb:getItem$/),
  };
}

/** Transitions of one change that serves after `changeSeconds`: the path plus its polls. */
export function transitionsPerChange(path: ExecutionPath, changeSeconds: number): number {
  if (!path.poll || path.poll.waitSeconds <= 0) return path.transitions;
  return path.transitions + Math.ceil(changeSeconds / path.poll.waitSeconds) * path.poll.states;
}
