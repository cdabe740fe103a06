// SVC_INVESTIGATOR=mcts: a tree search over hypotheses. A node is a set of checks read (its
// path from the root); expanding it asks System 2 for up to three checks worth reading next
// from that node's evidence; a child is valued by how far its readings settle the diagnosis
// (proven 1 … nothing 0), and values flow back up so the next round descends (by UCT) where
// the evidence looked most promising. Reads are real and shared across the tree: a check read
// on one branch is not read again on another. The diagnosis the episode gets uses every
// reading, since each is evidence.
import type { Assessment, InvestigatorContext, InvestigatorTools } from '../readings.js';
import type { Confidence } from '../types.js';
import { factsOf, proposalsSchema, tokensFor } from './investigator-prompt.js';
import { Stop, type Session } from './investigator-session.js';

const BRANCHING = 3;
const EXPLORE = Math.SQRT2;

const VALUE: Readonly<Record<Confidence, number>> = {
  proven: 1,
  linked: 0.9,
  suspected: 0.5,
  cleared: 0.3,
  disputed: 0.3,
  unproven: 0.1,
};

interface Node {
  readonly path: readonly string[];
  readonly parent: Node | null;
  /** null until expanded; then the proposals, best first */
  proposals: string[] | null;
  readonly children: Map<string, Node>;
  visits: number;
  total: number;
  /** the model's reason for its proposals, kept with each read */
  why: string;
}

const nodeOf = (path: readonly string[], parent: Node | null): Node => ({
  path,
  parent,
  proposals: null,
  children: new Map(),
  visits: 0,
  total: 0,
  why: '',
});

const valueOf = (a: Assessment): number => (a.lead === null ? 0 : VALUE[a.lead]);

function uct(child: Node, parentVisits: number): number {
  if (child.visits === 0) return Number.POSITIVE_INFINITY;
  return child.total / child.visits + EXPLORE * Math.sqrt(Math.log(parentVisits) / child.visits);
}

/** Unexpanded proposals of a node: those with no child yet. */
const open = (n: Node): string[] => (n.proposals ?? []).filter((p) => !n.children.has(p));

export async function runMcts(
  session: Session,
  ctx: InvestigatorContext,
  tools: InvestigatorTools,
  maxDepth: number,
): Promise<void> {
  const root = nodeOf([], null);
  const dead = new Set<Node>(); // nothing more to learn below
  for (;;) {
    // Select: down through fully expanded nodes by UCT.
    let node = root;
    while (node.proposals !== null && open(node).length === 0) {
      const live = [...node.children.values()].filter((c) => !dead.has(c));
      if (live.length === 0) break;
      const visits = node.visits;
      node = live.reduce((best, c) => (uct(c, visits) > uct(best, visits) ? c : best));
    }
    if (dead.has(root)) throw new Stop('exhausted');
    if (node.path.length >= maxDepth || (node.proposals !== null && open(node).length === 0)) {
      dead.add(node);
      continue;
    }
    // Expand: ask for proposals once per node.
    if (node.proposals === null) {
      const assessment = tools.assess(node.path);
      const left = tools.catalogue.filter((c) => !node.path.includes(c.id));
      if (left.length === 0) {
        node.proposals = [];
        dead.add(node);
        continue;
      }
      const ids = left.map((c) => c.id);
      const most = Math.min(BRANCHING, ids.length);
      const answer = (await session.ask(
        'investigator.propose',
        factsOf(ctx, assessment, left),
        proposalsSchema(ids, most),
        tokensFor(ids, most),
      )) as { checks: string[]; why: string };
      node.proposals = [...new Set(answer.checks)];
      node.why = answer.why;
      continue;
    }
    // Simulate: read the first open proposal (once for the whole tree) and value the child.
    const pick = open(node)[0];
    if (pick === undefined) continue;
    const child = nodeOf([...node.path, pick], node);
    node.children.set(pick, child);
    if (!tools.done().includes(pick)) await session.read(pick, node.why, child.path.length);
    const assessment = tools.assess(child.path);
    const value = valueOf(assessment);
    // Backpropagate.
    for (let n: Node | null = child; n !== null; n = n.parent) {
      n.visits += 1;
      n.total += value;
    }
    if (assessment.settled) throw new Stop('settled');
  }
}
