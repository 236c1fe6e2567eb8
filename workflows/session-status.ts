import type { SessionStatusView } from './messages';
import type { SessionState } from './session-state';

/** What getStatus answers: the session's counters and phase, read from its state. */
export const sessionStatus = (s: SessionState): SessionStatusView => ({
  sessionId: s.id, name: s.input.name, turn: s.turn, tokens: s.tokens,
  nextSeq: s.nextSeq, phase: s.phase, round: s.retained?.round ?? 0, unread: s.inbox.length, messagesSent: s.messagesSent,
  goal: s.long.goal?.status ?? null, schedules: s.long.activeSchedules().length, openApprovals: s.approvals.open.size,
});
