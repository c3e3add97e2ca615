

at4v
cq
nvidia.com/gpu.shared+GPU-c0ffee00-1111-2222-3333-444455556666::0+GPU-C0FFEE00-1111-2222-3333-444455556666::3
R
bt4I
cD
nvidia.com/gpu.shared+GPU-c0ffee00-1111-2222-3333-444455556666::1
ú
oldmigè
câ
nvidia.com/mig-1g.10gb0MIG-GPU-5b1c2a3e-0d4f-4e8a-9b7c-1a2b3c4d5e6f/7/01MIG-GPU-5b1c2a3e-0d4f-4e8a-9b7c-1a2b3c4d5e6f/99/0
MIG-GPU-x/