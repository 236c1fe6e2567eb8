/** The bare workflows' only activity: a round trip through Temporal that does nothing. */
export interface BareActivities {
  step(): Promise<void>;
}

export const bareActivities: BareActivities = {
  async step() {},
};
