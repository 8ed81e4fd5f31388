// SPDX-License-Identifier: GPL-2.0-only
// Umbrella header of the ai-fabric module.
#ifndef AI_FABRIC_MODULE_H
#define AI_FABRIC_MODULE_H

#include "ns3/aeth-header.h"
#include "ns3/bth-header.h"
#include "ns3/cnp-header.h"
#include "ns3/collective-algorithms.h"
#include "ns3/collective-engine.h"
#include "ns3/collective-hierarchical.h"
#include "ns3/collective-selection.h"
#include "ns3/collective-transport.h"
#include "ns3/comm-group.h"
#include "ns3/comm-plan.h"
#include "ns3/dcqcn.h"
#include "ns3/ecmp-routing-table.h"
#include "ns3/ideal-transport.h"
#include "ns3/immediate-data-header.h"
#include "ns3/no-congestion-control.h"
#include "ns3/pfc-header.h"
#include "ns3/plan-checker.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/rdma-transport.h"
#include "ns3/reth-header.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-congestion-control.h"
#include "ns3/roce-frame.h"
#include "ns3/roce-helper.h"
#include "ns3/roce-icrc.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"
#include "ns3/roce-topology-helper.h"
#include "ns3/roce-topology-reader.h"
#include "ns3/server-aware-transport.h"
#include "ns3/shared-buffer-mmu.h"

#endif
