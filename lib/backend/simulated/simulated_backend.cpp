namespace gpupool::backend {}
