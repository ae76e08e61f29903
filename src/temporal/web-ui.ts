/** Links into the Temporal Web UI, printed for people by the starter, the demo and the operator CLI. */

/** Link to a workflow's page in the Web UI at `webUiUrl`. */
export function webUiWorkflowLink(
  location: { readonly webUiUrl: string; readonly namespace: string },
  workflowId: string,
): string {
  const base = location.webUiUrl.replace(/\/$/, '');
  return `${base}/namespaces/${encodeURIComponent(location.namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}
