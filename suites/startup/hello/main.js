console.log("ready");
