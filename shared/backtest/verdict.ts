/**
 * The operator's question, answered for one run (BACKTEST.md, last section): Governor wins when
 * it meets the objective and costs no more than target tracking at its best target, or meets it
 * where no target can. Everything else is a loss, and the reason says which half failed. The
 * sentence is the backtest's first line and the HTML report's first view.
 */
import { type Objective, objectiveText, shareText } from './attainment.ts';
import type { SweptPoint } from './best-target.ts';

export type SloOutcome = 'win' | 'loss';

export interface SloVerdict {
  outcome: SloOutcome;
  /** Why a loss is one ("misses the objective: 99.21 % of minutes", "costs 4.4 % more than ..."); '' for a win. */
  reason: string;
  /** One sentence for the first line. */
  sentence: string;
}

export interface VerdictInput {
  objective: Objective;
  governor: {
    instanceMinutes: number;
    costVsOracle: number;
    attainment: number;
    meetsObjective: boolean;
    /** The attainment is the worst window's (a run longer than the objective's window). */
    worstWindow?: boolean;
  };
  best: SweptPoint | null;
  /** The swept target closest to the objective, for "cannot meet it at any target". */
  closest: SweptPoint;
  savingAtEqualSlo: number | null;
  /**
   * The fleet held at its peak (the static-peak baseline), when it ran: what meeting the objective
   * costs without scaling, said when no target tracking target meets it and Governor misses it, or
   * meets it at more.
   */
  heldAtPeak?: { instances: number; costVsOracle: number; meetsObjective: boolean };
}

/** Costs closer than a millionth are equal (instance-minutes carry 0.05 x idle warm instances). */
const COST_EPSILON = 1e-6;

const ratio = (x: number) => `${x.toFixed(2)}x`;
const pct1 = (x: number) => `${(100 * Math.abs(x)).toFixed(1)} %`;
const at = (p: SweptPoint) => `${p.fraction} x saturation, ${ratio(p.costVsOracle)}`;

function savingClause(saving: number | null): string {
  if (saving === null) return '';
  return `; at equal SLO ${pct1(saving)} ${saving >= 0 ? 'cheaper' : 'dearer'}`;
}

export function judgeSlo(input: VerdictInput): SloVerdict {
  const { objective, governor: g, best, closest } = input;
  const goal = objectiveText(objective);
  const where = g.worstWindow ? ` in its worst ${objective.windowMinutes / 1440} days` : '';
  const opening = `Governor ${g.meetsObjective ? 'meets' : 'misses'} ${goal} within the SLO (${shareText(g.attainment)}${where}) at ${ratio(g.costVsOracle)} the oracle`;
  const saving = savingClause(input.savingAtEqualSlo);
  if (!best) {
    const none = `target tracking cannot meet it at any target (at best ${shareText(closest.attainment)} at ${at(closest)})`;
    const held = input.heldAtPeak;
    if (g.meetsObjective) {
      // A win where no target can; but a fleet that never scales meeting it for less is said too.
      const cheaper =
        held?.meetsObjective && held.costVsOracle < g.costVsOracle - COST_EPSILON
          ? `; a fleet held at its peak (${held.instances} instances) meets it for less, at ${ratio(held.costVsOracle)}`
          : '';
      return { outcome: 'win', reason: '', sentence: `${opening}; ${none}${cheaper}.` };
    }
    // Nothing that scales met it: say what meeting it costs, when a fleet that never scales does.
    const fixed = held?.meetsObjective
      ? `; a fleet held at its peak (${held.instances} instances) meets it at ${ratio(held.costVsOracle)}`
      : '';
    return {
      outcome: 'loss',
      reason: `misses the objective: ${shareText(g.attainment)} of minutes`,
      sentence: `${opening}, and ${none}${saving}${fixed}.`,
    };
  }
  const more = (g.instanceMinutes - best.instanceMinutes) / best.instanceMinutes;
  const side = more > COST_EPSILON ? 'more' : 'less';
  const against = `${pct1(more)} ${side} than target tracking at its best target (${at(best)})`;
  if (!g.meetsObjective) {
    return {
      outcome: 'loss',
      reason: `misses the objective: ${shareText(g.attainment)} of minutes`,
      sentence: `${opening}, ${against}, which meets it${saving}.`,
    };
  }
  if (more > COST_EPSILON) {
    return {
      outcome: 'loss',
      reason: `costs ${pct1(more)} more than target tracking at ${best.fraction} x saturation`,
      sentence: `${opening}, ${against}${saving}.`,
    };
  }
  return { outcome: 'win', reason: '', sentence: `${opening}, ${against}${saving}.` };
}
