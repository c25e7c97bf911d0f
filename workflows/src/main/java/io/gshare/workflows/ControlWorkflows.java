package io.gshare.workflows;

import io.gshare.workflows.alert.AlertDeliveryWorkflowImpl;
import io.gshare.workflows.cluster.ClusterAttachWorkflowImpl;
import io.gshare.workflows.cluster.ClusterDetachWorkflowImpl;
import io.gshare.workflows.cluster.ClusterProbeWorkflowImpl;
import io.gshare.workflows.cluster.ClusterRerouteWorkflowImpl;
import io.gshare.workflows.cluster.KubeconfigProofWorkflowImpl;
import io.gshare.workflows.cluster.TokenRotationWorkflowImpl;
import io.gshare.workflows.common.TaskQueues;
import io.gshare.workflows.image.ImagePrepullWorkflowImpl;
import io.gshare.workflows.metrics.MetricQueryWorkflowImpl;
import io.gshare.workflows.node.NodeDevicesWorkflowImpl;
import io.gshare.workflows.node.NodeDrainWorkflowImpl;
import io.gshare.workflows.node.NodeLivenessWorkflowImpl;
import io.gshare.workflows.node.NodeUncordonWorkflowImpl;
import io.gshare.workflows.session.IdleReaperWorkflowImpl;
import io.gshare.workflows.session.MeteringWorkflowImpl;
import io.gshare.workflows.session.SessionRecoveryWorkflowImpl;
import io.gshare.workflows.session.SessionWorkflowImpl;
import io.gshare.workflows.system.SigningKeyRotationWorkflowImpl;
import io.gshare.workflows.volume.VolumeReclaimWorkflowImpl;
import java.util.List;

/** Every workflow implementation; the control worker registers them all on {@link TaskQueues#CONTROL}. */
public final class ControlWorkflows {

  public static final List<Class<?>> IMPLEMENTATIONS =
      List.of(ClusterProbeWorkflowImpl.class, ClusterAttachWorkflowImpl.class,
          ClusterDetachWorkflowImpl.class, SessionWorkflowImpl.class, MeteringWorkflowImpl.class,
          NodeDrainWorkflowImpl.class, NodeUncordonWorkflowImpl.class, NodeDevicesWorkflowImpl.class,
          VolumeReclaimWorkflowImpl.class, ImagePrepullWorkflowImpl.class,
          TokenRotationWorkflowImpl.class,
          SigningKeyRotationWorkflowImpl.class,
          IdleReaperWorkflowImpl.class,
          NodeLivenessWorkflowImpl.class,
          AlertDeliveryWorkflowImpl.class,
          SessionRecoveryWorkflowImpl.class,
          ClusterRerouteWorkflowImpl.class,
          MetricQueryWorkflowImpl.class,
          KubeconfigProofWorkflowImpl.class);

  private ControlWorkflows() {}
}
