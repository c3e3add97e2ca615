
n
rocmamda
c\
amd.com/gpu0000:c1:00.0c1:00.0-slice-2amdgpu_xcp_312fffffffff:c1:00.0	0:3b:1f.7