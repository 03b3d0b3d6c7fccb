#!/bin/bash
# Assignments as a command prefix, in the style of
# wangbluo/Finetune_llama2_Megatron start.sh ("NCCL_IB_CUDA_SUPPORT=1
# NCCL_NET_GDR_LEVEL=SYS NCCL_IB_GID_INDEX=3 torchrun ..."), plus set -a,
# mpirun -x and a heredoc that must not be read as assignments.
set -a
NCCL_SOCKET_IFNAME=^lo,docker
set +a
cat > /tmp/nccl.conf <<EOF_CONF
NCCL_IGNORED_IN_HEREDOC=1
EOF_CONF
NCCL_IB_CUDA_SUPPORT=1 NCCL_NET_GDR_LEVEL=SYS NCCL_IB_GID_INDEX=3 \
torchrun --nproc_per_node=4 finetune.py \
    --model_max_length 2048
mpirun -np 16 -x NCCL_DEBUG=WARN -x NCCL_COLLNET_ENABLE=01 -x NCCL_NET=IB ./all_reduce_perf -b 8 -e 1G
export NCCL_COMM_ID="$(hostname -i):12345"
unset NCCL_COMM_ID
export NCCL_DEBUG_FILE=/tmp/nccl.%h.%p.log
