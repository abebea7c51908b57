/**
 * A progress bar for terminals: redrawn in place (cursor up one line, clear it) so it works
 * through a line-based writer. The CLI shows it only when stderr is a TTY, so pipes and CI logs
 * get clean output.
 */
const WIDTH = 30;
const UP_AND_CLEAR = '\u001b[1A\u001b[2K';

export interface ProgressBar {
  update: (label: string, done: number) => void;
  done: () => void;
}

export function progressBar(write: (line: string) => void): ProgressBar {
  let shown = -1;
  let drawn = false;
  const draw = (label: string, done: number) => {
    const filled = Math.round(done * WIDTH);
    write(
      `${drawn ? UP_AND_CLEAR : ''}[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${Math.round(done * 100)} % ${label}`,
    );
    drawn = true;
  };
  return {
    update: (label, done) => {
      const percent = Math.floor(done * 100);
      if (percent === shown) return;
      shown = percent;
      draw(label, done);
    },
    done: () => {
      if (drawn) draw('done', 1);
    },
  };
}
