export interface Line {
  amount: number;
}

export function total(lines: Line[]): number {
  return lines.reduce((sum, line) => sum + line.amount, 0);
}
