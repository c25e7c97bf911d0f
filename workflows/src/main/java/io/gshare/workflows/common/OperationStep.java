package io.gshare.workflows.common;

/**
 * One step of a long operation as a person follows it.
 *
 * @param status pending, running, done or failed
 * @param detail what the step found or why it failed; null when there is nothing to say
 * @param startedAt epoch millis (workflow time), or 0 when not started
 * @param endedAt epoch millis (workflow time), or 0 when not ended
 */
public record OperationStep(String name, StepStatus status, String detail, long startedAt, long endedAt) {}
