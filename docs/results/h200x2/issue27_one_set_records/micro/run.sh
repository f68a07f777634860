#!/usr/bin/env bash
# Built here: nvcc -O3 -std=c++17 -arch=sm_90 --extended-lambda -o record_sort record_sort.cu
# Run on GPU 0 of two H200s, twice:
export CUDA_VISIBLE_DEVICES=0
for i in 1 2; do ./record_sort 1024 2048 2300 4096 9362 16384 37449 65536 149796 262144 1048576 > run$i.csv; done
