// placeholder: replaced by the node-label work
namespace gpupool::node {}
