// SPDX-License-Identifier: GPL-2.0-only
// Umbrella header of the ai-fabric module.

/**
 * \defgroup ai-fabric AI fabric
 *
 * Packet-level simulation of the network of a GPU cluster while it trains a neural
 * network: a RoCEv2 scale-out fabric (RoceNetDevice, RoceSwitch with a shared-buffer MMU,
 * 802.1Qbb PFC, ECN and ECMP; RdmaNic queue pairs with go-back-N, RTO and congestion
 * control such as Dcqcn), an NVLink/NVSwitch scale-up fabric with in-switch reduction,
 * NCCL-style collective plans run over carriers (CollectiveEngine), and the replay of
 * training traces (WorkloadRunner, TrainingSimulation). Layers, lowest first: fabric,
 * rdma, nvlink, transport, collective, workload, helper; see doc/ai-fabric.rst.
 */
#ifndef AI_FABRIC_MODULE_H
#define AI_FABRIC_MODULE_H

#include "ns3/aeth-header.h"
#include "ns3/aicb-reader.h"
#include "ns3/attribute-text.h"
#include "ns3/bth-header.h"
#include "ns3/chakra-reader.h"
#include "ns3/cnp-header.h"
#include "ns3/collective-algorithms.h"
#include "ns3/collective-engine.h"
#include "ns3/collective-hierarchical.h"
#include "ns3/collective-plan-cost.h"
#include "ns3/collective-selection.h"
#include "ns3/collective-transport.h"
#include "ns3/comm-group.h"
#include "ns3/comm-plan.h"
#include "ns3/roce-dcqcn.h"
#include "ns3/roce-dctcp.h"
#include "ns3/roce-hpcc.h"
#include "ns3/ecmp-routing-table.h"
#include "ns3/fabric-monitor.h"
#include "ns3/gpu-cluster-helper.h"
#include "ns3/gpu-preset.h"
#include "ns3/ideal-transport.h"
#include "ns3/immediate-data-header.h"
#include "ns3/int-header.h"
#include "ns3/ina-aggregation-engine.h"
#include "ns3/ina-controller.h"
#include "ns3/ina-frame.h"
#include "ns3/ina-header.h"
#include "ns3/ina-helper.h"
#include "ns3/ina-transport.h"
#include "ns3/ina-worker.h"
#include "ns3/no-congestion-control.h"
#include "ns3/nv-switch.h"
#include "ns3/nv-switch-fabric.h"
#include "ns3/nvlink-port.h"
#include "ns3/pfc-deadlock-detector.h"
#include "ns3/pfc-header.h"
#include "ns3/pfc-watchdog.h"
#include "ns3/plan-checker.h"
#include "ns3/program-options.h"
#include "ns3/quantity-text.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/reth-header.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-congestion-control.h"
#include "ns3/roce-frame-info.h"
#include "ns3/roce-helper.h"
#include "ns3/icrc-trailer.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/roce-topology-helper.h"
#include "ns3/roce-topology-reader.h"
#include "ns3/scenario-overrides.h"
#include "ns3/server-routing-transport.h"
#include "ns3/shared-buffer-mmu.h"
#include "ns3/roce-swift.h"
#include "ns3/roce-timely.h"
#include "ns3/trace-json.h"
#include "ns3/training-report.h"
#include "ns3/fct-report.h"
#include "ns3/report-files.h"
#include "ns3/training-scenario.h"
#include "ns3/training-simulation.h"
#include "ns3/training-trace.h"
#include "ns3/transformer-trace-generator.h"
#include "ns3/workload-runner.h"
#include "ns3/background-traffic.h"
#include "ns3/flow-size-cdf.h"

#endif
