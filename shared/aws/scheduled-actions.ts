/**
 * Application Auto Scaling adapter for the forecast's scheduled actions on SageMaker targets:
 * the registered MinCapacity, the scheduled actions of one scalable target, and one-time
 * actions put and deleted by name. Which to put and which to delete is decided in
 * shared/floors/scheduled-actions.ts; nothing here lists or deletes by anything but the exact
 * resource, dimension and name.
 */
import {
  type ApplicationAutoScalingClient,
  DeleteScheduledActionCommand,
  DescribeScalableTargetsCommand,
  DescribeScheduledActionsCommand,
  PutScheduledActionCommand,
} from '@aws-sdk/client-application-auto-scaling';
import { atExpression, type ExistingAction, type PlannedAction } from '../floors/scheduled-actions.ts';
import { countField, MalformedResponseError } from './capacity.ts';
import type { ScalableRef } from './scalable-target.ts';

export interface ScheduledActionsPort {
  /** The registered MinCapacity, or null when the resource is not a registered scalable target. */
  minCapacity(region: string, ref: ScalableRef): Promise<number | null>;
  list(region: string, ref: ScalableRef): Promise<ExistingAction[]>;
  put(region: string, ref: ScalableRef, action: PlannedAction): Promise<void>;
  remove(region: string, ref: ScalableRef, name: string): Promise<void>;
}

const NAMESPACE = 'sagemaker' as const;
/** Guards against a service that keeps answering with a NextToken (50 actions a page). */
const MAX_PAGES = 20;

export function scheduledActionsAdapter(
  clientFor: (region: string) => ApplicationAutoScalingClient,
): ScheduledActionsPort {
  const target = (ref: ScalableRef) => ({
    ServiceNamespace: NAMESPACE,
    ResourceId: ref.resourceId,
    ScalableDimension: ref.dimension,
  });
  return {
    async minCapacity(region, ref) {
      const out = await clientFor(region).send(
        new DescribeScalableTargetsCommand({
          ServiceNamespace: NAMESPACE,
          ResourceIds: [ref.resourceId],
          ScalableDimension: ref.dimension,
        }),
      );
      const found = (out.ScalableTargets ?? []).find(
        (t) => t.ResourceId === ref.resourceId && t.ScalableDimension === ref.dimension,
      );
      return found ? countField(found.MinCapacity, 'ScalableTargets[].MinCapacity') : null;
    },
    async list(region, ref) {
      const actions: ExistingAction[] = [];
      let token: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const out = await clientFor(region).send(
          new DescribeScheduledActionsCommand({ ...target(ref), NextToken: token }),
        );
        for (const a of out.ScheduledActions ?? []) {
          if (!a.ScheduledActionName) throw new MalformedResponseError('ScheduledActionName is missing');
          actions.push({
            name: a.ScheduledActionName,
            schedule: a.Schedule ?? '',
            minCapacity: a.ScalableTargetAction?.MinCapacity,
          });
        }
        token = out.NextToken;
        if (!token) return actions;
      }
      throw new Error(`DescribeScheduledActions still had a NextToken after ${MAX_PAGES} pages`);
    },
    async put(region, ref, action) {
      // MinCapacity only: MaxCapacity stays the operator's (the plan never exceeds the policy's max).
      await clientFor(region).send(
        new PutScheduledActionCommand({
          ...target(ref),
          ScheduledActionName: action.name,
          Schedule: atExpression(action.at),
          ScalableTargetAction: { MinCapacity: action.minCapacity },
        }),
      );
    },
    async remove(region, ref, name) {
      await clientFor(region).send(
        new DeleteScheduledActionCommand({ ...target(ref), ScheduledActionName: name }),
      );
    },
  };
}
