/**
 * Where the chart looks: the zoom buttons, the line above the chart that says what is showing,
 * and the decision log's time links, which zoom the chart and bring it to the reader. The page
 * opens on the busiest day (view.ts and docs/report.md say why).
 */
import { formatDuration } from '../format.ts';
import { formatMinute } from '../time.ts';
import { describeSpan } from '../view.ts';

/** The figure a time link in the decision log leads to (the link's href is `#${CHART}`). */
export const CHART = 'chart-wrap';

/** Minutes either side of a decision a time link zooms to. */
const AROUND = 60;

/**
 * The named windows the zoom buttons go to. The button of the window showing is highlighted
 * (and pressed, for a screen reader), none when the view is another span; the view line names
 * it too, so "the busiest day" reads as a choice, not an accident.
 */
function namedWindows(model) {
  const first = model.policies[0];
  const windows = [
    {
      span: [0, model.minutes - 1],
      name: 'the whole trace',
      button: `Whole trace (${formatDuration(model.minutes)})`,
    },
    { span: model.busiestDay, name: 'the busiest day (the most requests)', button: 'Busiest day' },
  ];
  if (first?.worstDay) {
    windows.push({
      span: first.worstDay,
      name: `the day ${first.name} had the most violation minutes`,
      button: `${first.name}: most violations`,
    });
  }
  return windows;
}

/**
 * Brings the chart to the reader after a time link zoomed it: scrolls the figure to the top of
 * the window and moves the focus onto it (the link itself is gone: the log was refilled for the
 * new window), so Tab goes on from the chart's zoom buttons. The URL gets the figure's fragment
 * as a new history entry, once, as a plain link to it would: Back returns to the log where the
 * reader was.
 */
function showChart(figure) {
  if (location.hash !== `#${CHART}`) history.pushState(null, '', `#${CHART}`);
  figure.focus({ preventScroll: true });
  figure.scrollIntoView({ block: 'start' });
}

/**
 * `main()` is the main chart once drawn. Returns `zoomTo(min, max)`, `goTo(policy, minute)` for
 * the log's links, `current()` (the decision last gone to, or null), `describe(u)` to refresh
 * the view line from the chart's x range, and `addButtons(container)`.
 */
export function navigation(model, main, figure, line) {
  const named = namedWindows(model);
  const buttons = [];
  let around = null;
  const zoomTo = (min, max) =>
    main().setScale('x', { min: Math.max(0, min), max: Math.min(model.minutes - 1, max) });
  const goTo = (policy, minute) => {
    const span = [Math.max(0, minute - AROUND), Math.min(model.minutes - 1, minute + AROUND)];
    const name = `the two hours around ${policy.name}'s decision at ${formatMinute(minute)}`;
    around = { policy: policy.name, minute, span, name };
    // spread-ok: a [from, to] pair
    zoomTo(...span);
    showChart(figure);
  };
  const describe = (u) => {
    const min = Math.round(u.scales.x.min);
    const max = Math.round(u.scales.x.max);
    const hit = [...named, ...(around ? [around] : [])].find(
      ({ span }) => span[0] === min && span[1] === max,
    );
    line.textContent = `Showing ${describeSpan(min, max)} of ${formatDuration(model.minutes)}${hit ? `: ${hit.name}` : ''}.`;
    named.forEach(({ span }, i) => {
      const showing = span[0] === min && span[1] === max;
      buttons[i]?.classList.toggle('primary', showing);
      buttons[i]?.setAttribute('aria-pressed', String(showing));
    });
  };
  const addButtons = (container) =>
    named.forEach(({ span, button: text }, i) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = text;
      b.setAttribute('aria-pressed', 'false');
      buttons[i] = b;
      // spread-ok: a [from, to] pair
      b.addEventListener('click', () => zoomTo(...span));
      container.append(b);
    });
  return { zoomTo, goTo, current: () => around, describe, addButtons };
}
