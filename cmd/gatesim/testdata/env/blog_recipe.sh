#!/bin/bash
# A multi-node training job script in the style of public blog and repository
# recipes. The NCCL_* lines of the first block follow two real public recipes:
#   - AILab-CVC/SEED MultiModalLLM/scripts/train_a100_lora_multi_node_pretrain.sh
#     (IB tuning block: GID index, SL, TC, QPs per connection, GDR level, PXN,
#     CollNet off, plus the old NCCL_CHECKS_DISABLE, NCCL_LL_THRESHOLD and
#     NCCL_IB_CUDA_SUPPORT that many recipes still carry);
#   - the widely copied "NCCL_IB_TIMEOUT=23 / NCCL_IB_RETRY_CNT=7" pair (e.g.
#     the EVE training scripts).
# The second block mixes in names that are not NCCL parameters or are typos.
#SBATCH --job-name=pretrain
#SBATCH --nodes=4
#SBATCH --gpus-per-node=8
#SBATCH --export=ALL,NCCL_DEBUG_SUBSYS=INIT,NET

export NCCL_IB_GID_INDEX=3
export NCCL_IB_SL=3
export NCCL_CHECKS_DISABLE=1
export NCCL_P2P_DISABLE=0
export NCCL_IB_DISABLE=0
export NCCL_LL_THRESHOLD=16384
export NCCL_IB_CUDA_SUPPORT=1
export NCCL_SOCKET_IFNAME=bond1
export NCCL_IB_HCA=mlx5_bond_1,mlx5_bond_5,mlx5_bond_3,mlx5_bond_7
export NCCL_COLLNET_ENABLE=0
export SHARP_COLL_ENABLE_SAT=0
export NCCL_NET_GDR_LEVEL=2
export NCCL_IB_QPS_PER_CONNECTION=4
export NCCL_IB_TC=160
export NCCL_PXN_DISABLE=1
export GLOO_SOCKET_IFNAME=bond1
export NCCL_DEBUG=info
export NCCL_IB_TIMEOUT=23
export NCCL_IB_RETRY_CNT=7

# --- mixed in: unreal names, typos and values NCCL reads differently ---
export NCCL_TIMEOUT=1800          # not an NCCL variable
export NCCL_VERSION=2.18.5        # a macro of nccl.h, not a variable
export NCCL_BUFFLE_SIZE=8388608   # typo of NCCL_BUFFSIZE
export NCCL_ASYNC_ERROR_HANDLING=1
export NCCL_MAX_NRINGS=16         # the 2.4 name of NCCL_MAX_NCHANNELS
export NCCL_BUFFSIZE=8M           # strtoll reads 8
export NCCL_NVLS_ENABLE=true      # not a number: 0
export NCCL_P2P_LEVEL=nvl         # case-sensitive
export NCCL_ALGO="Ring, Tree"     # whitespace is not trimmed
export NCCL_PROTO=^LL128
export NCCL_MIN_NCHANNELS=010     # octal: 8
export NCCL_PAT_ENABLE=1          # 2.23.4 and later
export NCCL_CROSS_NIC=1
NCCL_NET_GDR_READ=1               # never exported
export NCCL_NTHREADS=500          # not a multiple of 32

srun --export=ALL,NCCL_CUMEM_ENABLE=0 \
    torchrun --nnodes=$SLURM_NNODES --nproc_per_node=8 \
    --rdzv_endpoint=$MASTER_ADDR:29500 train.py --config configs/pretrain.yaml
