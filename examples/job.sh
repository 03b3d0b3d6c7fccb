#!/bin/bash
# A 16-node training job script written for `gatesim env`: the NCCL_* block of a
# typical SLURM recipe for DGX H100 with SHARP, with two mistakes left in on
# purpose (a misspelt variable and a value NCCL reads differently).
#SBATCH --job-name=pretrain
#SBATCH --nodes=16
#SBATCH --gpus-per-node=8

export NCCL_DEBUG=INFO
export NCCL_DEBUG_SUBSYS=INIT,ENV,TUNING
export NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7
export NCCL_SOCKET_IFNAME=eth0
export NCCL_COLLNET_ENABLE=1
export NCCL_IB_TIMEOUT=23
export NCCL_IB_RETRY_CNT=7
export NCCL_BUFFSIZE=8M          # strtoll reads 8 (bytes), not 8 MiB
export NCCL_NVLS_ENABLED=1       # typo of NCCL_NVLS_ENABLE

srun torchrun --nnodes=$SLURM_NNODES --nproc_per_node=8 train.py
