#pragma once
// Empty: test/dataset/emulate-task.cpp force-includes cudaemu.h, which provides the runtime API.
