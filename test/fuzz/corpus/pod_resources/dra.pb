
¦
dramlš
c*”	gpu-claimml"q
D
Bk8s.gpu.nvidia.com/device=GPU-5b1c2a3e-0d4f-4e8a-9b7c-1a2b3c4d5e6f


noequalsgpu.nvidia.comnode-a"gpu-0"gpu.nvidia.com